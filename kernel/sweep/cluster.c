/* kernel/sweep/cluster.c — shards and the Slurm script (cluster.h). */
#include "sweep/cluster.h"

#include <string.h>

#include "sweep/results.h"

gboolean insee_sweep_shard_parse(const char *text, guint *index, guint *count, GError **err)
{
    guint64 i = 0, n = 0;
    const char *slash = strchr(text, '/');
    gboolean ok = slash && g_ascii_string_to_unsigned(slash + 1, 10, 1, G_MAXUINT32, &n, NULL);
    char *head = slash ? g_strndup(text, (gsize)(slash - text)) : NULL;
    ok = ok && g_ascii_string_to_unsigned(head, 10, 1, n, &i, NULL);
    g_free(head);
    if (!ok) {
        g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--shard %s: write I/N, the I-th of N shards, 1 <= I <= N (e.g. --shard 3/8)",
                    text);
        return FALSE;
    }
    *index = (guint)i;
    *count = (guint)n;
    return TRUE;
}

gboolean insee_sweep_shard_has(guint run, guint index, guint count)
{
    return run % count == index - 1;
}

/* "runs.csv" -> "runs-shard-": what a shard's files are named after. */
static char *shard_base(const char *output)
{
    return insee_sweep_results_sibling(output, "-shard-");
}

char *insee_sweep_shard_file(const char *output, const char *index)
{
    char *base = shard_base(output);
    char *path = g_strconcat(base, index, ".csv", NULL);
    g_free(base);
    return path;
}

static void words(GString *s, char *const *argv)
{
    for (char *const *a = argv; *a; a++) {
        char *q = g_shell_quote(*a);
        g_string_append_printf(s, "%s%s", a == argv ? "" : " ", q);
        g_free(q);
    }
}

static void quoted(GString *s, const char *word)
{
    char *q = g_shell_quote(word);
    g_string_append(s, q);
    g_free(q);
}

char *insee_sweep_slurm_script(char *const *sweep, guint tasks, guint cpus, const char *dir,
                               const char *output, const char *summary)
{
    GString *s = g_string_new("#!/bin/bash\n");
    char *base = shard_base(output);
    g_string_append_printf(s, "#SBATCH --job-name=insee-sweep\n#SBATCH --array=1-%u\n"
                              "#SBATCH --cpus-per-task=%u\n#SBATCH --output=%s%%a.log\n",
                           tasks, cpus, base);
    g_string_append_printf(
        s, "# An insee sweep in %u shards, written by insee sweep --slurm (docs/sweeps.md).\n"
           "#   bash THIS-FILE         submits the shards as a job array, then the merge\n"
           "#   sbatch THIS-FILE       submits the shards only\n"
           "#   bash THIS-FILE merge   merges the shards' results\n"
           "set -euo pipefail\ncd ",
        tasks);
    quoted(s, dir);
    g_string_append(s, "\nif [ \"${1:-}\" = merge ]; then\n  exec ");
    words(s, sweep);
    for (guint i = 1; i <= tasks; i++) {
        char *index = g_strdup_printf("%u", i);
        char *file = insee_sweep_shard_file(output, index);
        g_string_append(s, " --merge ");
        quoted(s, file);
        g_free(file);
        g_free(index);
    }
    g_string_append(s, " --summary ");
    quoted(s, summary);
    g_string_append(s, " -o ");
    quoted(s, output);
    g_string_append(s, "\nfi\nif [ -z \"${SLURM_ARRAY_TASK_ID:-}\" ]; then\n"
                       "  self=$(realpath \"$0\")\n"
                       "  array=$(sbatch --parsable \"$self\")\n"
                       "  sbatch --dependency=afterany:\"${array%%;*}\" --job-name=insee-sweep-merge "
                       "--output=");
    char *merge_log = g_strconcat(output, ".merge.log", NULL);
    quoted(s, merge_log);
    g_free(merge_log);
    g_string_append(s, " --wrap=\"bash $(printf %q \"$self\") merge\"\n  exit 0\nfi\nexec ");
    words(s, sweep);
    g_string_append_printf(s, " --shard \"$SLURM_ARRAY_TASK_ID/%u\" -j \"${SLURM_CPUS_PER_TASK:-%u}\" -o ",
                           tasks, cpus);
    quoted(s, base);
    g_string_append(s, "\"$SLURM_ARRAY_TASK_ID\".csv\n");
    g_free(base);
    return g_string_free(s, FALSE);
}
