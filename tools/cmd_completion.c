/* cmd_completion.c - `fleetsim completion bash|zsh`: the shell completion
 * script, made from the command table (cli_commands) and each command's
 * getopt_long options, so it cannot drift from what the commands accept.
 * It completes commands, options, policy names after --policy and
 * --policies (comma lists too), trace formats after import, and files
 * elsewhere. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../io/readers.h"
#include "cli.h"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim completion bash|zsh\n\n"
               "Print the completion script for bash or zsh on stdout.  make install installs\n"
               "both (share/bash-completion/completions/fleetsim and\n"
               "share/zsh/site-functions/_fleetsim); to try one in the running shell:\n"
               "  bash: source <(fleetsim completion bash)\n"
               "  zsh:  fleetsim completion zsh > ~/.zfunc/_fleetsim  (a folder on $fpath)\n\n"
               "  -h, --help   this help\n");
    return code;
}

const struct option completion_opts[] = {
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static bool takes_policies(const struct option *o)
{
    return strcmp(o->name, "policy") == 0 || strcmp(o->name, "policies") == 0;
}

/* The words of a list: the policies, the import formats, or command c's options. */
static void policies(FILE *f)
{
    size_t n;
    const char *const *names = sched_policy_names(&n); /* with the aliases */
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? " " : "", names[i]);
}

static void formats(FILE *f)
{
    for (size_t i = 0; trace_readers[i]; i++)
        fprintf(f, "%s ", trace_readers[i]->name);
    fprintf(f, "azure-llm");
}

static void options(FILE *f, const struct cli_command *c)
{
    for (const struct option *o = c->opts; o->name; o++)
        fprintf(f, "%s--%s", o == c->opts ? "" : " ", o->name); /* --policy-lib is in opts */
}

static void bash(FILE *f)
{
    fprintf(f, "# bash completion for fleetsim (fleetsim completion bash)\n"
               "_fleetsim() {\n"
               "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
               "    local policies='");
    policies(f);
    fprintf(f, "'\n    if [ \"$COMP_CWORD\" -eq 1 ]; then\n        COMPREPLY=($(compgen -W '");
    for (const struct cli_command *c = cli_commands; c->name; c++)
        fprintf(f, "%s ", c->name);
    fprintf(f, "--help --version' -- \"$cur\"))\n        return\n    fi\n"
               "    local cmd=${COMP_WORDS[1]} opts= policy_opts=\n"
               "    case $cmd in\n");
    for (const struct cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, "    %s) opts='", c->name);
        options(f, c);
        fprintf(f, "'; policy_opts='");
        bool first = true;
        for (const struct option *o = c->opts; o->name; o++)
            if (takes_policies(o)) {
                fprintf(f, "%s--%s", first ? "" : " ", o->name);
                first = false;
            }
        fprintf(f, "' ;;\n");
    }
    fprintf(f, "    esac\n"
               "    if [[ \" $policy_opts \" == *\" $prev \"* ]]; then\n"
               "        local done=${cur%%\"${cur##*,}\"}\n"
               "        COMPREPLY=($(compgen -P \"$done\" -W \"$policies all\" -- \"${cur##*,}\"))\n"
               "        compopt -o nospace 2>/dev/null\n"
               "        return\n"
               "    fi\n"
               "    if [ \"$cmd\" = import ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
               "        COMPREPLY=($(compgen -W '");
    formats(f);
    fprintf(f, "' -- \"$cur\"))\n        return\n    fi\n"
               "    if [ \"$cmd\" = calibrate ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
               "        COMPREPLY=($(compgen -W 'power' -- \"$cur\"))\n        return\n    fi\n"
               "    if [ \"$cmd\" = completion ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
               "        COMPREPLY=($(compgen -W 'bash zsh' -- \"$cur\"))\n        return\n    fi\n"
               "    if [[ $cur == -* ]]; then\n"
               "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
               "    else\n"
               "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
               "    fi\n"
               "}\n"
               "complete -o filenames -F _fleetsim fleetsim\n");
}

static void zsh(FILE *f)
{
    fprintf(f, "#compdef fleetsim\n# zsh completion for fleetsim (fleetsim completion zsh)\n"
               "_fleetsim() {\n"
               "    local -a commands policies opts\n"
               "    commands=(\n");
    for (const struct cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, "        '%s:", c->name);
        for (const char *p = c->summary; *p; p++)
            fputs(*p == '\'' ? "'\\''" : (char[]){*p, 0}, f);
        fprintf(f, "'\n");
    }
    fprintf(f, "    )\n    policies=(");
    policies(f);
    fprintf(f, " all)\n"
               "    if (( CURRENT == 2 )); then\n"
               "        _describe -t commands 'fleetsim command' commands\n"
               "        return\n"
               "    fi\n"
               "    case $words[2] in\n");
    for (const struct cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, "    %s) opts=(", c->name);
        options(f, c);
        fprintf(f, ") ;;\n");
    }
    fprintf(f, "    esac\n"
               "    case $words[CURRENT-1] in\n"
               "    --policy|--policies)\n"
               "        compset -P '*,'\n"
               "        compadd -S '' -a policies\n"
               "        return ;;\n"
               "    esac\n"
               "    if [[ $words[2] == import && CURRENT -eq 3 ]]; then\n"
               "        compadd ");
    formats(f);
    fprintf(f, "\n        return\n    fi\n"
               "    if [[ $words[2] == calibrate && CURRENT -eq 3 ]]; then compadd power; return; fi\n"
               "    if [[ $words[2] == completion && CURRENT -eq 3 ]]; then compadd bash zsh; return; fi\n"
               "    if [[ $PREFIX == -* ]]; then\n"
               "        compadd -a opts\n"
               "    else\n"
               "        _files\n"
               "    fi\n"
               "}\n"
               "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
               "    _fleetsim \"$@\"\n"
               "else\n"
               "    compdef _fleetsim fleetsim\n"
               "fi\n");
}

int cmd_completion(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
        return usage(0);
    if (argc != 2 || (strcmp(argv[1], "bash") != 0 && strcmp(argv[1], "zsh") != 0)) {
        fprintf(stderr, "fleetsim: completion: expected bash or zsh\n");
        return usage(64);
    }
    (strcmp(argv[1], "bash") == 0 ? bash : zsh)(stdout);
    return fflush(stdout) == 0 ? 0 : 73;
}
