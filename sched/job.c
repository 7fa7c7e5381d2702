/* job.c - job kinds and placement reset. */
#include "job.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[JOB_KIND_COUNT] = {
    [JOB_TRAIN] = "train",
    [JOB_FINETUNE] = "finetune",
    [JOB_INFER] = "infer",
    [JOB_BATCH] = "batch",
};

const char *job_kind_name(enum job_kind k)
{
    return (unsigned)k < JOB_KIND_COUNT ? kind_names[k] : "?";
}

int job_kind_parse(const char *name)
{
    for (int k = 0; k < JOB_KIND_COUNT; k++)
        if (strcmp(name, kind_names[k]) == 0)
            return k;
    return -1;
}

void job_reset_placement(struct job *j)
{
    free(j->gang);
    j->gang = NULL;
    j->type = -1;
    j->node = -1;
    j->nnodes = 0;
    j->start = -1;
    j->end = -1;
}
