/* paths.h — lists of whole paths between two routers, their cache and their
 * split over a flow, shared by the routings that compute several paths per
 * pair (ksp, allpath); compiled into each .so like shortest.c.
 *
 * A routing keeps a routing_lister: its paths() asks routing_lister_paths(),
 * which answers from the cache or has the routing list the pair's paths
 * into a routing_list (its memory reused from pair to pair), caches them
 * and gives them to the flow by the split. The cache holds the paths of
 * recent pairs within a fixed memory cap; what it holds never changes an
 * answer, only how soon it comes. */
#ifndef INSEE_ROUTING_PATHS_H
#define INSEE_ROUTING_PATHS_H

#include "shortest.h"

enum { ROUTING_SPLIT_EVEN, ROUTING_SPLIT_HASH };

/* The split and cache_mb parameters of every routing built on this. */
#define ROUTING_SPLIT_PARAM                                                             \
    {"split", INSEE_PARAM_ENUM, "\"even\"", 1, 0, "even|hash", NULL,                    \
     "even: the flow split equally over its paths; hash: the whole flow on one of them, " \
     "picked from the flow's salt"}
#define ROUTING_CACHE_MB_PARAM                                                          \
    {"cache_mb", INSEE_PARAM_DOUBLE, "16", 0.001, 1e6, NULL, "MiB",                    \
     "memory for the cached paths of recent pairs of routers"}

/* A growable list of paths; path i's ports start at ports + first[i], and
   its first head[i] ports are the head it was pushed with. */
typedef struct routing_list {
    uint32_t count, room;    /* paths, and room for them */
    size_t used, port_room;  /* ports, and room for them */
    uint32_t *hops, *first, *head, *ports;
} routing_list;

void routing_list_free(routing_list *l);
/* Append the path `head` (head_hops ports) followed by `tail`; false when
   out of memory. */
bool routing_list_push(routing_list *l, const uint32_t *head, uint32_t head_hops,
                       const uint32_t *tail, uint32_t tail_hops);
/* Path i of a against path j of b: fewer hops first, then the lower port at
   the first router where they differ; <0, 0, >0. */
int routing_list_compare(const routing_list *a, uint32_t i, const routing_list *b, uint32_t j);
/* Take path i out of l: l's last path takes its place (its ports stay
   where they are until the list is emptied). */
void routing_list_drop(routing_list *l, uint32_t i);
/* Move path i to the end of dst, its head with it, and out of src (src's
   last path takes its place); false when out of memory. */
bool routing_list_move(routing_list *src, uint32_t i, routing_list *dst);

/* Recent pairs' paths within a memory cap (paths.c). */
typedef struct routing_cache routing_cache;

/* What a routing that lists each pair's paths keeps. */
typedef struct routing_lister {
    const char *who;      /* the plugin's name, for messages */
    routing_graph *g;
    routing_cache *cache;
    routing_list found;   /* the pair's paths being listed */
    int split;
} routing_lister;

/* False with err filled (naming who) when out of memory. */
bool routing_lister_init(routing_lister *l, const char *who, const insee_host *host, int split,
                         double table_mb, double cache_mb, insee_error *err);
void routing_lister_clear(routing_lister *l);
/* The whole of a paths() entry: src -> dst's paths from the cache, or
   listed by list(self, src, dst, dist) into l->found (emptied first; dist:
   dst's distance table, src reaching it; false when out of memory) and
   cached; none when dst cannot be reached; given to the flow by the split.
   False with err filled when out of memory. */
bool routing_lister_paths(routing_lister *l, void *self,
                          bool (*list)(void *self, uint32_t src, uint32_t dst,
                                       const uint32_t *dist),
                          uint32_t src, uint32_t dst, uint32_t salt,
                          void (*add)(void *ctx, const uint32_t *ports, uint32_t hops,
                                      double share),
                          void *ctx, insee_error *err);

#endif
