/* Fuzz target for the trace parser (plugins/traffic/trace/trace_parse.c):
 * whatever the bytes, trace_parse() returns a script or an error that names
 * the input, never crashes, reads out of bounds or leaks. A script it
 * returns is played to the end by the runner at once (every task due every
 * cycle, every message delivered in the cycle it is sent), so a parsed
 * trace that the runner mishandles is found too. Built as a libFuzzer
 * target with -DINSEE_FUZZ=ON (clang); always built as a replay driver that
 * runs the seed corpus (corpus-trace/) under ctest. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TASKS 64u

typedef struct fuzz_kernel {
    uint32_t woken;
} fuzz_kernel;

static void fuzz_shape(insee_kernel *k, insee_shape *out)
{
    (void)k;
    *out = (insee_shape){.nodes = FUZZ_TASKS, .packet_phits = 16, .tasks = FUZZ_TASKS};
}

static uint32_t fuzz_message_packets(insee_kernel *k, uint64_t bytes)
{
    (void)k;
    uint64_t packets = bytes / 64 + (bytes % 64 != 0);
    return packets == 0 ? 1 : packets > UINT32_MAX ? UINT32_MAX : (uint32_t)packets;
}

static void fuzz_wake_task(insee_kernel *k, uint32_t task, uint64_t at)
{
    (void)task;
    (void)at;
    ((fuzz_kernel *)(void *)k)->woken++;
}

/* Every task emits each cycle until it has nothing due; a sent message is
   delivered at once. A bounded number of rounds: a trace may deadlock. */
static void play(script *s)
{
    fuzz_kernel fk = {0};
    insee_host host = {.size = sizeof host, .abi_minor = INSEE_ABI_MINOR,
                       .kernel = (insee_kernel *)(void *)&fk, .shape = fuzz_shape,
                       .message_packets = fuzz_message_packets, .wake_task = fuzz_wake_task};
    insee_error err = {0};
    script_runner *r = script_runner_new(s, &host, true, "<fuzz>", 0.5, &err);
    if (!r)
        return;
    for (uint64_t now = 1; now < 256 && !script_runner_finished(r); now++)
        for (uint32_t t = 0; t < FUZZ_TASKS; t++) {
            insee_message msg;
            uint64_t next;
            if (script_runner_start(r, t) != INSEE_NEVER &&
                script_runner_emit(r, t, now, &msg, &next))
                script_runner_delivered(r, t, &msg, now);
        }
    char buf[128];
    script_runner_describe_wait(r, buf, sizeof buf);
    script_runner_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    insee_error err = {0};
    script *s = trace_parse((const char *)data, size, "<fuzz>", FUZZ_TASKS, &err);
    if (s) {
        uint64_t events = 0;
        for (uint32_t t = 0; t < script_tasks(s); t++)
            events += script_length(s, t);
        if (events == 0 || script_tasks(s) > FUZZ_TASKS)
            abort(); /* the contract: at least one event, within max_tasks */
        play(s);
    } else if (strncmp(err.message, "<fuzz>", 6) != 0) {
        abort(); /* every error names the input */
    }
    return 0;
}
