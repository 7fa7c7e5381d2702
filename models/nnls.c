/* nnls.c - non-negative least squares (nnls.h). */
#include "nnls.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "../base/base.h"

/* Least squares on the columns in passive (unconstrained), the others 0.
 * OUT z: the solution in full length. */
static void solve_passive(const gsl_matrix *A, const gsl_vector *b, const bool *passive, gsl_vector *z)
{
    size_t m = A->size1, n = A->size2, k = 0;
    gsl_vector_set_zero(z);
    for (size_t j = 0; j < n; j++)
        k += passive[j];
    if (k == 0)
        return;
    gsl_matrix *S = gsl_matrix_alloc(m, k), *cov = gsl_matrix_alloc(k, k);
    gsl_vector *c = gsl_vector_alloc(k);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(m, k);
    double chisq;
    for (size_t j = 0, col = 0; j < n; j++)
        if (passive[j]) {
            gsl_vector_const_view v = gsl_matrix_const_column(A, j);
            gsl_matrix_set_col(S, col++, &v.vector);
        }
    gsl_multifit_linear(S, b, c, cov, &chisq, ws);
    for (size_t j = 0, col = 0; j < n; j++)
        if (passive[j])
            gsl_vector_set(z, j, gsl_vector_get(c, col++));
    gsl_multifit_linear_free(ws);
    gsl_vector_free(c);
    gsl_matrix_free(cov);
    gsl_matrix_free(S);
}

/* Non-negative least squares, min |A x - b| with x >= 0: the active-set
 * method of Lawson and Hanson ("Solving Least Squares Problems", 1974,
 * ch. 23), each subproblem solved by GSL.  OUT x. */
void nnls(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x)
{
    size_t m = A->size1, n = A->size2;
    bool *passive = xcalloc(n, sizeof *passive);
    gsl_vector *r = gsl_vector_alloc(m), *wv = gsl_vector_alloc(n), *z = gsl_vector_alloc(n);
    gsl_vector_set_zero(x);
    for (size_t iter = 0; iter < 3 * n; iter++) {
        gsl_vector_memcpy(r, b); /* r = b - A x; w = A^T r */
        gsl_blas_dgemv(CblasNoTrans, -1, A, x, 1, r);
        gsl_blas_dgemv(CblasTrans, 1, A, r, 0, wv);
        size_t best = n;
        for (size_t j = 0; j < n; j++)
            if (!passive[j] && gsl_vector_get(wv, j) > 1e-12 && (best == n || gsl_vector_get(wv, j) > gsl_vector_get(wv, best)))
                best = j;
        if (best == n)
            break;
        passive[best] = true;
        for (;;) {
            solve_passive(A, b, passive, z);
            double alpha = 2;
            for (size_t j = 0; j < n; j++)
                if (passive[j] && gsl_vector_get(z, j) <= 0) {
                    double xj = gsl_vector_get(x, j);
                    alpha = fmin(alpha, xj / (xj - gsl_vector_get(z, j)));
                }
            if (alpha > 1) {
                gsl_vector_memcpy(x, z);
                break;
            }
            for (size_t j = 0; j < n; j++) {
                double xj = gsl_vector_get(x, j) + alpha * (gsl_vector_get(z, j) - gsl_vector_get(x, j));
                gsl_vector_set(x, j, xj);
                if (passive[j] && xj <= 1e-15)
                    passive[j] = false, gsl_vector_set(x, j, 0);
            }
        }
    }
    gsl_vector_free(r);
    gsl_vector_free(wv);
    gsl_vector_free(z);
    free(passive);
}
