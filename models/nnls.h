/* nnls.h - non-negative least squares: min |A x - b| subject to x >= 0,
 * by the active-set method of Lawson and Hanson ("Solving Least Squares
 * Problems", 1974, ch. 23), each unconstrained subproblem solved by GSL's
 * gsl_multifit_linear.  The LLM serving fit (llm_load.c) uses it to keep
 * efficiencies at or below 1 and overheads at or above 0.
 */
#ifndef FS_MODELS_NNLS_H
#define FS_MODELS_NNLS_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

/* IN A (m x n), b (m).  OUT x (n): the solution, every entry >= 0. */
void nnls(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x);

#endif
