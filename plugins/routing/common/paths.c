/* paths.c — path lists, the pair cache and the split; see paths.h. */
#include "paths.h"

#include <stdlib.h>
#include <string.h>

/* A pair's paths: path i has hops[i] ports, the paths' ports one after the
   other (each path's port at the i-th router from the source). */
typedef struct routing_paths {
    uint32_t count;
    const uint32_t *hops;
    const uint32_t *ports;
} routing_paths;

void routing_list_free(routing_list *l)
{
    free(l->hops);
    free(l->first);
    free(l->head);
    free(l->ports);
    *l = (routing_list){0};
}

static bool grow(routing_list *l, size_t ports)
{
    if (l->count == l->room) {
        uint32_t room = l->room ? 2 * l->room : 8;
        uint32_t *hops = realloc(l->hops, sizeof *hops * room);
        if (hops)
            l->hops = hops;
        uint32_t *first = realloc(l->first, sizeof *first * room);
        if (first)
            l->first = first;
        uint32_t *head = realloc(l->head, sizeof *head * room);
        if (head)
            l->head = head;
        if (!hops || !first || !head)
            return false;
        l->room = room;
    }
    if (l->used + ports > l->port_room) {
        size_t room = 2 * (l->used + ports);
        uint32_t *p = realloc(l->ports, sizeof *p * room);
        if (!p)
            return false;
        l->ports = p;
        l->port_room = room;
    }
    return true;
}

bool routing_list_push(routing_list *l, const uint32_t *head, uint32_t head_hops,
                       const uint32_t *tail, uint32_t tail_hops)
{
    if (!grow(l, (size_t)head_hops + tail_hops))
        return false;
    l->first[l->count] = (uint32_t)l->used;
    l->head[l->count] = head_hops;
    l->hops[l->count++] = head_hops + tail_hops;
    if (head_hops)
        memcpy(l->ports + l->used, head, sizeof *head * head_hops);
    if (tail_hops)
        memcpy(l->ports + l->used + head_hops, tail, sizeof *tail * tail_hops);
    l->used += (size_t)head_hops + tail_hops;
    return true;
}

int routing_list_compare(const routing_list *a, uint32_t i, const routing_list *b, uint32_t j)
{
    if (a->hops[i] != b->hops[j])
        return a->hops[i] < b->hops[j] ? -1 : 1;
    const uint32_t *x = a->ports + a->first[i], *y = b->ports + b->first[j];
    for (uint32_t h = 0; h < a->hops[i]; h++)
        if (x[h] != y[h])
            return x[h] < y[h] ? -1 : 1;
    return 0;
}

void routing_list_drop(routing_list *l, uint32_t i)
{
    l->count--;
    l->hops[i] = l->hops[l->count];
    l->first[i] = l->first[l->count];
    l->head[i] = l->head[l->count];
}

bool routing_list_move(routing_list *src, uint32_t i, routing_list *dst)
{
    if (!routing_list_push(dst, src->ports + src->first[i], src->hops[i], NULL, 0))
        return false;
    dst->head[dst->count - 1] = src->head[i];
    routing_list_drop(src, i);
    return true;
}

/* The list as paths: built by routing_list_push alone, its paths lie one
   after the other in order. */
static routing_paths list_paths(const routing_list *l)
{
    return (routing_paths){l->count, l->hops, l->ports};
}

/* A log of entries [src, dst, count, hops..., ports...]
   written one after the other and emptied when the next does not fit, with
   a direct-mapped index by pair: the entry it points to is checked against
   the pair, and one it no longer points to just waits for the next
   emptying. */
struct routing_cache {
    uint32_t *log;
    uint32_t size, head; /* words in the log, and where the next entry goes */
    uint32_t *index;     /* per slot: an entry's offset, or UINT32_MAX */
    uint32_t slots;      /* a power of two */
};

enum { ENTRY_HEADER = 3 };

static void cache_free(routing_cache *c)
{
    if (!c)
        return;
    free(c->log);
    free(c->index);
    free(c);
}

/* NULL when out of memory. */
static routing_cache *cache_new(double mb)
{
    double words = mb * 1048576.0 / sizeof(uint32_t);
    if (words > UINT32_MAX / 2)
        words = UINT32_MAX / 2;
    routing_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    /* A ninth of the words index the log, a slot for eight words of it: an
       entry takes three words, one per path and one per port. */
    c->slots = 1;
    while (c->slots * 2.0 <= words / 9)
        c->slots *= 2;
    c->size = words > c->slots + ENTRY_HEADER + 1 ? (uint32_t)words - c->slots
                                                   : ENTRY_HEADER + 1;
    c->log = malloc(sizeof *c->log * c->size);
    c->index = malloc(sizeof *c->index * c->slots);
    if (!c->log || !c->index) {
        cache_free(c);
        return NULL;
    }
    memset(c->index, 0xff, sizeof *c->index * c->slots);
    return c;
}

static uint32_t slot_of(const routing_cache *c, uint32_t src, uint32_t dst)
{
    return routing_mix(src ^ routing_mix(dst)) & (c->slots - 1);
}

/* The paths stored for src -> dst into *out (valid until the next put);
   false when not held. */
static bool cache_get(const routing_cache *c, uint32_t src, uint32_t dst, routing_paths *out)
{
    uint32_t at = c->index[slot_of(c, src, dst)];
    if (at == UINT32_MAX || c->log[at] != src || c->log[at + 1] != dst)
        return false;
    const uint32_t *e = c->log + at;
    *out = (routing_paths){e[2], e + ENTRY_HEADER, e + ENTRY_HEADER + e[2]};
    return true;
}

/* Store a copy of src -> dst's paths, emptying the cache first when it is
   full; paths larger than the whole cache are not stored. */
static void cache_put(routing_cache *c, uint32_t src, uint32_t dst, const routing_paths *p)
{
    size_t ports = 0;
    for (uint32_t i = 0; i < p->count; i++)
        ports += p->hops[i];
    size_t words = ENTRY_HEADER + (size_t)p->count + ports;
    if (words > c->size)
        return;
    if (c->head + words > c->size) {
        memset(c->index, 0xff, sizeof *c->index * c->slots);
        c->head = 0;
    }
    uint32_t *e = c->log + c->head;
    e[0] = src;
    e[1] = dst;
    e[2] = p->count;
    memcpy(e + ENTRY_HEADER, p->hops, sizeof *p->hops * p->count);
    memcpy(e + ENTRY_HEADER + p->count, p->ports, sizeof *p->ports * ports);
    c->index[slot_of(c, src, dst)] = c->head;
    c->head += (uint32_t)words;
}

/* Give a flow its paths (at least one): even, each with 1/count of it;
   hash, the whole flow on the path the salt picks. */
static void give(const routing_paths *p, int split, uint32_t salt,
                 void (*add)(void *ctx, const uint32_t *ports, uint32_t hops, double share),
                 void *ctx)
{
    const uint32_t *ports = p->ports;
    if (split == ROUTING_SPLIT_HASH) {
        uint32_t pick = routing_mix(salt) % p->count;
        for (uint32_t i = 0; i < pick; i++)
            ports += p->hops[i];
        add(ctx, ports, p->hops[pick], 1.0);
        return;
    }
    for (uint32_t i = 0; i < p->count; i++) {
        add(ctx, ports, p->hops[i], 1.0 / p->count);
        ports += p->hops[i];
    }
}

bool routing_lister_init(routing_lister *l, const char *who, const insee_host *host, int split,
                         double table_mb, double cache_mb, insee_error *err)
{
    *l = (routing_lister){.who = who, .split = split};
    l->g = routing_graph_new(who, host, table_mb, err);
    if (!l->g)
        return false;
    l->cache = cache_new(cache_mb);
    if (!l->cache) {
        insee_error_set(err, INSEE_ERR_NOMEM, "%s: out of memory for a cache of %g MiB", who,
                        cache_mb);
        return false;
    }
    return true;
}

void routing_lister_clear(routing_lister *l)
{
    routing_graph_free(l->g);
    cache_free(l->cache);
    routing_list_free(&l->found);
}

bool routing_lister_paths(routing_lister *l, void *self,
                          bool (*list)(void *self, uint32_t src, uint32_t dst,
                                       const uint32_t *dist),
                          uint32_t src, uint32_t dst, uint32_t salt,
                          void (*add)(void *ctx, const uint32_t *ports, uint32_t hops,
                                      double share),
                          void *ctx, insee_error *err)
{
    routing_paths p;
    if (!cache_get(l->cache, src, dst, &p)) {
        const uint32_t *dist = routing_graph_distances(l->g, dst);
        if (dist[src] == ROUTING_UNREACHABLE)
            return true; /* not connected: no path */
        l->found.count = 0;
        l->found.used = 0;
        if (!list(self, src, dst, dist)) {
            insee_error_set(err, INSEE_ERR_NOMEM,
                            "%s: out of memory for the paths from router %u to router %u",
                            l->who, src, dst);
            return false;
        }
        p = list_paths(&l->found);
        cache_put(l->cache, src, dst, &p);
    }
    give(&p, l->split, salt, add, ctx);
    return true;
}
