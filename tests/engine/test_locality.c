/* The locality allocation (docs/scheduling.md) against allocations worked
 * out by hand. Jobs run uniform traffic at load 0, so each ends exactly its
 * runtime after it starts and holds its nodes until then; a job arriving
 * later sees the earlier ones' nodes taken. */
#include <criterion/criterion.h>
#include <string.h>

#include "run_helpers.h"

/* Jobs "a", "b", ... of `tasks[i]` tasks arriving at arrival[i], running
   runtime[i] cycles, under `allocation` on `net`. */
static insee_report run_timed(const char *net, const char *allocation, const int *tasks,
                              const int *arrival, const int *runtime, int n)
{
    GString *t = g_string_new(net);
    g_string_append_printf(t, "[scheduler]\nallocation = \"%s\"\n", allocation);
    for (int i = 0; i < n; i++)
        g_string_append_printf(t, "[[application]]\nname = \"%c\"\ntasks = %d\narrival = %d\n"
                                  "runtime = %d\n[application.traffic]\nplugin = \"uniform\"\n"
                                  "load = 0\n", 'a' + i, tasks[i], arrival[i], runtime[i]);
    insee_report r = run_toml(t->str);
    g_string_free(t, TRUE);
    return r;
}

/* Jobs arriving at cycles 0, 1, 2, ..., each running 1000 cycles. */
static insee_report run_jobs(const char *net, const char *allocation, const int *tasks, int n)
{
    int arrival[8], runtime[8];
    for (int i = 0; i < n; i++) {
        arrival[i] = i;
        runtime[i] = 1000;
    }
    return run_timed(net, allocation, tasks, arrival, runtime, n);
}

static int by_number(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Job `name` got exactly the nodes `want` (ascending), in any order. */
static void assert_nodes(const insee_report *r, const char *name, const uint32_t *want, uint32_t n)
{
    for (uint32_t a = 0; a < r->n_apps; a++) {
        const insee_app_report *ar = &r->apps[a];
        if (strcmp(ar->name, name) != 0)
            continue;
        cr_assert_eq(ar->job_nodes, n, "%s has %u nodes, not %u", name, ar->job_nodes, n);
        uint32_t *got = g_memdup2(ar->job_node, sizeof *got * n);
        qsort(got, n, sizeof *got, by_number);
        for (uint32_t i = 0; i < n; i++)
            cr_expect_eq(got[i], want[i], "%s: node %u is %u, not %u", name, i, got[i], want[i]);
        g_free(got);
        return;
    }
    cr_assert_fail("no job %s", name);
}

static const char mesh[] = "[topology]\nplugin = \"mesh\"\ndims = [4, 4]\n"
                           "[router]\nplugin = \"dally\"\n";

/* Node x + 4y of the 4x4 mesh. a (3 nodes): the shapes of smallest
   diameter (2) spread over one dimension are 1x3 and 3x1; 1x3 comes first,
   at the first corner: the column x = 0, nodes 0, 4, 8. b (4 nodes): 2x2
   (diameter 2) beats 1x4 and 4x1 (3); its corner at node 0 holds nodes 0
   and 4, taken; at node 1 it is 1, 2, 5, 6, all free. c (4 nodes): the
   2x2 boxes at 2 (2, 3, 6, 7) and 4 (4, 5, 8, 9) hold taken nodes; at 5
   they are 5, 6; at 6 nodes 6; at 8: 8; at 9: 9, 10, 13, 14, free. */
Test(locality, a_2x2_box_on_a_4x4_mesh_around_taken_nodes)
{
    const int tasks[] = {3, 4, 4};
    insee_report r = run_jobs(mesh, "locality", tasks, 3);
    assert_nodes(&r, "a", (const uint32_t[]){0, 4, 8}, 3);
    assert_nodes(&r, "b", (const uint32_t[]){1, 2, 5, 6}, 4);
    assert_nodes(&r, "c", (const uint32_t[]){9, 10, 13, 14}, 4);
    insee_report_clear(&r);
}

/* On a 4x4 torus a whole ring is as compact as a 2x2 box (diameter 2)
   and spread over one dimension: a (4 nodes, 10 cycles) takes the column
   x = 0 (0, 4, 8, 12); b (8 nodes) the 2x4 box of x = 1 and 2 (its corner
   at node 0 holds taken nodes). Once a has ended, c (8 nodes) fits only
   the box that wraps round from x = 3 to x = 0: 3, 0, 7, 4, 11, 8, 15, 12. */
Test(locality, boxes_wrap_round_a_torus)
{
    const char torus[] = "[topology]\nplugin = \"torus\"\ndims = [4, 4]\n"
                         "[router]\nplugin = \"dally\"\n";
    const int tasks[] = {4, 8, 8}, runtime[] = {10, 1000, 1000}, arrival[] = {0, 1, 20};
    insee_report r = run_timed(torus, "locality", tasks, arrival, runtime, 3);
    assert_nodes(&r, "a", (const uint32_t[]){0, 4, 8, 12}, 4);
    assert_nodes(&r, "b", (const uint32_t[]){1, 2, 5, 6, 9, 10, 13, 14}, 8);
    assert_nodes(&r, "c", (const uint32_t[]){0, 3, 4, 7, 8, 11, 12, 15}, 8);
    insee_report_clear(&r);
}

/* The example's dragonfly: 9 groups of 4 routers of 2 nodes (group g holds
   nodes 8g to 8g + 7). a (6 nodes) fits a group: group 0, its routers with
   the most free nodes first, 0 to 5. b (5 nodes) fits no router; group 0
   has 2 free, the others 8: best fit, group 1, nodes 8 to 12 — where
   contiguous would take the run 6 to 10 across two groups. c (2 nodes) fits
   a router: router 3 (nodes 6, 7), the only one with exactly 2 free. */
Test(locality, a_dragonfly_job_fits_one_group)
{
    const char df[] = "[topology]\nplugin = \"dragonfly\"\na = 4\np = 2\nh = 2\n"
                      "arrangement = \"palmtree\"\n[router]\nplugin = \"updown\"\n";
    const int tasks[] = {6, 5, 2};
    insee_report r = run_jobs(df, "locality", tasks, 3);
    assert_nodes(&r, "a", (const uint32_t[]){0, 1, 2, 3, 4, 5}, 6);
    assert_nodes(&r, "b", (const uint32_t[]){8, 9, 10, 11, 12}, 5);
    assert_nodes(&r, "c", (const uint32_t[]){6, 7}, 2);
    insee_report_clear(&r);
    insee_report c = run_jobs(df, "contiguous", tasks, 3);
    assert_nodes(&c, "b", (const uint32_t[]){6, 7, 8, 9, 10}, 5);
    insee_report_clear(&c);
}

/* A 4-ary 2-tree: 4 leaf switches of 4 nodes, every two leaves 2 hops
   apart. a (3) takes leaf 0's nodes 0 to 2; b (6) fits no leaf: the whole
   tree, the leaves with the most free nodes whole first (leaf 1: 4 to 7),
   then leaf 2 (8, 9): two leaves, where the lowest free nodes would be
   three (3, 4 to 8). */
Test(locality, a_tree_job_on_the_fewest_leaves)
{
    const char tree[] = "[topology]\nplugin = \"kary-ntree\"\nk = 4\nn = 2\n"
                        "[router]\nplugin = \"updown\"\n";
    const int tasks[] = {3, 6};
    insee_report r = run_jobs(tree, "locality", tasks, 2);
    assert_nodes(&r, "a", (const uint32_t[]){0, 1, 2}, 3);
    assert_nodes(&r, "b", (const uint32_t[]){4, 5, 6, 7, 8, 9}, 6);
    insee_report_clear(&r);
}
