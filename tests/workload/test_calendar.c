/* tests/workload/test_calendar.c — the calendar of task due times
 * (kernel/engine/events.h) pops in the heap's order: by cycle, then task,
 * whether an entry sits in a bucket or, beyond the buckets' span or
 * before their base, in the heap behind them. */
#include <criterion/criterion.h>

#include "engine/events.h"

/* Pop both until the calendar is empty; they must agree. */
static void drain(insee_calendar *c, insee_heap *h)
{
    while (h->len) {
        insee_due want = insee_heap_pop(h), got = insee_calendar_first(c);
        cr_assert_eq(got.at, want.at);
        cr_assert_eq(got.task, want.task);
        insee_calendar_pop(c);
    }
    cr_assert_eq(insee_calendar_first(c).at, UINT64_MAX);
}

static void push(insee_calendar *c, insee_heap *h, uint64_t at, uint32_t task)
{
    insee_calendar_push(c, at, task);
    insee_heap_push(h, at, task);
}

Test(calendar, ties_pop_in_task_order_across_buckets_and_heap)
{
    insee_calendar c;
    insee_heap h = {0};
    insee_calendar_init(&c, 8);
    push(&c, &h, 10, 5);
    push(&c, &h, 30, 2); /* beyond the span: the heap */
    push(&c, &h, 12, 7);
    push(&c, &h, 12, 3);
    push(&c, &h, 4, 9);  /* before the base: the heap */
    push(&c, &h, 12, 8);
    push(&c, &h, 4, 1);
    drain(&c, &h);
    insee_calendar_clear(&c);
    insee_heap_clear(&h);
}

Test(calendar, random_pushes_and_pops_follow_the_heap)
{
    insee_calendar c;
    insee_heap h = {0};
    insee_calendar_init(&c, 16);
    uint64_t now = 0, x = 12345;
    for (int step = 0; step < 20000; step++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(x >> 33);
        if (r % 3 && h.len) {
            insee_due want = insee_heap_pop(&h), got = insee_calendar_first(&c);
            cr_assert_eq(got.at, want.at);
            cr_assert_eq(got.task, want.task);
            insee_calendar_pop(&c);
            now = want.at;
        } else {
            /* mostly near, sometimes far, now and then in the past */
            uint64_t gap = r % 7 == 0 ? (r >> 8) % 100 : (r >> 8) % 12;
            uint64_t at = r % 11 == 0 && now > 5 ? now - 5 : now + gap;
            push(&c, &h, at, (r >> 16) % 8);
        }
    }
    drain(&c, &h);
    insee_calendar_clear(&c);
    insee_heap_clear(&h);
}
