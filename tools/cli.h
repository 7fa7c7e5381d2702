/* cli.h - what the subcommands of tools/fleetsim share. */
#ifndef FS_TOOLS_CLI_H
#define FS_TOOLS_CLI_H

#include <cjson/cJSON.h>
#include <getopt.h>

#include "../base/base.h"
#include "../base/version.h"
#include "../run/exec.h"
#include "../run/run.h"


/* Each subcommand: argv[0] is the subcommand's name.  RET: exit status. */
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_fill(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_roadmap(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_completion(int argc, char **argv);

/* The subcommands, NULL-terminated: fleetsim --help, the man pages
 * (tools/mkman.sh) and the completion scripts are made from this table. */
struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const struct option *opts;
    const char *summary;
    bool plugins; /* takes --policy-lib PATH.so (cli_policy_libs) */
};
extern const struct cli_command cli_commands[];

/* Each subcommand's options (completion and suggestions read them). */
extern const struct option run_opts[], compare_opts[], sweep_opts[], regress_opts[], calibrate_opts[],
    import_opts[], models_opts[], gen_opts[], plan_opts[], roadmap_opts[], fill_opts[], serve_opts[], validate_opts[],
    completion_opts[];

/* Load every --policy-lib PATH.so (or --policy-lib=PATH.so) of argv[2..]
 * before the first "--" (sched/plugin.h) and take them out of argv, so the
 * subcommand's own options never see them.  RET: 0, or the exit status
 * with the message printed (64 no value, 65 not a plugin or another ABI
 * version, 66 no such file). */
int cli_policy_libs(int *argc, char **argv);

/* Report err on stderr as "fleetsim: MESSAGE" and return its exit status. */
int cli_fail(const struct fs_err *err);

/* The GPU catalog to use when a scenario names none: $FLEETSIM_DATA/gpus.json,
 * else the build tree's models/data/gpus.json or the installed
 * share/fleetsim/gpus.json next to the executable.  RET: a path (static). */
const char *cli_default_catalog(void);

/* The scenario schema: the build tree's schema/scenario.schema.json or the
 * installed share/fleetsim/scenario.schema.json next to the executable.
 * RET: a path (static). */
const char *cli_default_schema(void);

/* -o PATH into *out for the subcommand cmd.  RET: 0, or 64 with the
 * message printed when PATH is empty (an unset $OUTDIR). */
int cli_parse_output(const char *cmd, const char *arg, const char **out);

/* -j N (1..EXEC_MAX_JOBS worker processes) for command cmd into *jobs.
 * RET: 0, or 64 with the message printed unless mute. */
int cli_parse_jobs(const char *arg, const char *cmd, bool mute, int *jobs);

/* --max-output-mb N, which every command that writes files takes: the
 * budget of reports/output.h. */
enum { CLI_MAX_OUTPUT = 0x100 }; /* its getopt_long code: no short option */
#define CLI_OPT_MAX_OUTPUT {"max-output-mb", required_argument, NULL, CLI_MAX_OUTPUT}
/* RET: 0, or 64 with the message printed. */
int cli_parse_max_output(const char *cmd, const char *arg);

/* --seed N into so.  RET: 0, or 64 with the message printed. */
int cli_parse_seed(const char *arg, struct scenario_options *so);

/* A comma-separated list of distinct seeds (option opt, e.g. "--seeds")
 * appended to seeds[*n], at most max.  RET: 0, or 64 with the message
 * printed.  list is cut up (strtok_r). */
int cli_parse_seeds(const char *opt, char *list, uint64_t *seeds, int max, int *n);

/* --set PATH=VALUE appended to so's edits (io/scenario.h; the loader
 * checks them).  RET: 0, or 64 with the message printed (too many). */
int cli_parse_set(const char *arg, struct scenario_options *so);

/* A getopt_long error of command cmd (c ':' a value missing, else an
 * unknown option arg) on stderr, with the nearest of opts as a hint. */
void cli_bad_option(const char *cmd, int c, const char *arg, const struct option *opts);

/* --json: the file DIR/NAME a command just wrote, copied to stdout.
 * RET: 0, or 73 with the message printed. */
int cli_print_file(const char *dir, const char *name);

#endif
