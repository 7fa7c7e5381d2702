/* cmd_validate.c - `fleetsim validate SCENARIO...`: each scenario's
 * structure checked against the JSON Schema (base/jschema.h), then its
 * meaning by the loader, as `fleetsim run` would load it. */
#include <getopt.h>
#include <stdio.h>

#include "../base/json.h"
#include "../base/jschema.h"
#include "cli.h"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim validate SCENARIO... [--schema FILE] [--schema-only] [--set PATH=VALUE]...\n"
               "                         [--catalog FILE] [--quiet]\n\n"
               "Check each SCENARIO: first its structure against the JSON Schema (draft 2020-12;\n"
               "keys, types, ranges), then its meaning by loading it as `fleetsim run` would\n"
               "(GPU types and node templates in the catalog, traces readable and valid, jobs\n"
               "that fit the fleet).  Every schema violation is printed; a file that breaks the\n"
               "schema is not loaded.  Prints \"SCENARIO: valid\" on stderr for each good one.\n\n"
               "      --schema FILE     the schema (default: schema/scenario.schema.json in the\n"
               "                        build tree, or the installed share/fleetsim one)\n"
               "      --schema-only     check the structure only (do not load)\n"
               "      --set PATH=VALUE  edit each scenario as read (as run does); repeatable\n"
               "      --catalog FILE    GPU catalog for scenarios that name none\n"
               "  -q, --quiet           print nothing but errors\n"
               "  -h, --help            this help\n\n"
               "Exit: 0 every scenario is valid, 64 usage, 65 a scenario is invalid, 66 a file\n"
               "cannot be read.\n");
    return code;
}

const struct option validate_opts[] = {
    {"schema", required_argument, NULL, 'S'}, {"set", required_argument, NULL, 'E'},
    {"catalog", required_argument, NULL, 'c'}, {"quiet", no_argument, NULL, 'q'},
    {"schema-only", no_argument, NULL, 'O'}, {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* One scenario.  RET: its exit status (0, 65 or 66). */
static int validate_one(const cJSON *schema, const char *path, const struct scenario_options *so, bool load,
                        bool quiet)
{
    struct fs_err err = {0};
    cJSON *tree = NULL;
    int rc = scenario_read(path, so, &tree, &err);
    if (rc)
        return cli_fail(&err);
    char label[4200];
    snprintf(label, sizeof label, "fleetsim: %s", path);
    int bad = jschema_check(schema, tree, label, stderr, 50);
    if (bad > 50)
        fprintf(stderr, "fleetsim: %s: %d schema violations in all (the first 50 shown)\n", path, bad);
    struct scenario *sc = NULL;
    if (bad == 0 && load && (rc = scenario_load_tree(tree, path, so, &sc, &err)) != 0)
        cli_fail(&err);
    scenario_free(sc);
    cJSON_Delete(tree);
    if (bad < 0)
        return 70;
    if (bad == 0 && rc == 0 && !quiet)
        fprintf(stderr, "%s: valid\n", path);
    return bad ? 65 : rc ? fs_exit_code(rc) : 0;
}

int cmd_validate(int argc, char **argv)
{
    const struct option *opts = validate_opts;
    struct scenario_options so = {.catalog = NULL};
    const char *schema_path = NULL;
    bool quiet = false, load = true;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
        switch (c) {
        case 'S': schema_path = optarg; break;
        case 'E':
            if (cli_parse_set(optarg, &so))
                return 64;
            break;
        case 'c': so.catalog = optarg; break;
        case 'O': load = false; break;
        case 'q': quiet = true; break;
        case 'h': return usage(0);
        default:
            cli_bad_option("validate", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "fleetsim: validate: expected one or more SCENARIO files\n");
        return usage(64);
    }
    if (!so.catalog)
        so.catalog = cli_default_catalog();
    if (!schema_path)
        schema_path = cli_default_schema();
    struct fs_err err = {0};
    cJSON *schema = NULL;
    if (json_load_file(schema_path, &schema, &err))
        return cli_fail(&err);
    int worst = 0;
    for (int i = optind; i < argc; i++) {
        int rc = validate_one(schema, argv[i], &so, load, quiet);
        if (rc > worst)
            worst = rc;
    }
    cJSON_Delete(schema);
    return worst;
}
