/* trace_parse.h — FSIN trace text to a script (script.h); the format is in
 * README.md. Kept apart from the plugin so that the unit tests and the
 * fuzz target drive it on bytes in memory.
 *
 * Contract: trace_parse() reads text[0..len) (any bytes, NULs included; no
 * terminator needed) and either returns a script whose task count is one
 * more than the largest task id the text names, each task's events in file
 * order with their line numbers, or returns NULL with err set to
 * "name:line: what is wrong; what to do". A trace needing more than
 * max_tasks tasks is refused before its script is allocated, naming the
 * first line with its highest task. It never reads outside the buffer and
 * allocates only the script. */
#ifndef INSEE_TRACE_PARSE_H
#define INSEE_TRACE_PARSE_H

#include "script.h"

#define TRACE_MAX_LINE 4096u /* characters in a line, its newline excluded */

script *trace_parse(const char *text, size_t len, const char *name, uint32_t max_tasks,
                    insee_error *err);

#endif
