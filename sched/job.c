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

static const char *const method_names[] = {
    [JOB_METHOD_NONE] = "",
    [JOB_METHOD_TRAIN] = "train",
    [JOB_METHOD_LORA] = "lora",
    [JOB_METHOD_INFER] = "infer",
    [JOB_METHOD_QLORA] = "qlora",
};

const char *job_method_name(enum job_method m)
{
    return (unsigned)m < FS_ARRAY_LEN(method_names) ? method_names[m] : "?";
}

int job_method_parse(const char *name)
{
    for (size_t m = 1; m < FS_ARRAY_LEN(method_names); m++)
        if (strcmp(name, method_names[m]) == 0)
            return (int)m;
    return -1;
}

void job_drop_gang(struct job *j)
{
    if (j->nnodes > 1)
        free(j->gang);
    j->gpu_mask = 0;
}

void job_reset_placement(struct job *j)
{
    job_drop_gang(j);
    j->type = -1;
    j->node = -1;
    j->nnodes = 0;
    j->start = -1;
    j->end = -1;
    j->seg = -1;
    j->ran = 0;
    j->evicted = 0;
    j->timed_out = 0;
}

static const char *const class_names[JOB_CLASS_COUNT] = {"best-effort", "standard", "latency"};

const char *job_class_name(enum job_class c)
{
    return (unsigned)c < JOB_CLASS_COUNT ? class_names[c] : "?";
}

int job_class_parse(const char *name)
{
    for (int c = 0; c < JOB_CLASS_COUNT; c++)
        if (strcmp(name, class_names[c]) == 0)
            return c;
    return -1;
}
