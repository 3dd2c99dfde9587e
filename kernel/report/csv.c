/* kernel/report/csv.c — RFC 4180 records (csv.h). */
#include "report/csv.h"

#include "report/results.h"

GPtrArray *insee_csv_read(const char *text, const char *name, GArray **lines, GError **err)
{
    GPtrArray *records = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
    *lines = g_array_new(FALSE, FALSE, sizeof(guint));
    GPtrArray *fields = g_ptr_array_new_with_free_func(g_free);
    GString *field = g_string_new(NULL);
    guint line = 1, start = 1;
    const char *p = text;
    while (*p) {
        if (*p == '"' && field->len == 0) {
            guint quote_line = line;
            for (p++;; p++) {
                if (!*p) {
                    g_set_error(err, INSEE_REPORT_ERROR, INSEE_REPORT_ERROR_INPUT,
                                "%s:%u: a quoted field is never closed", name, quote_line);
                    g_string_free(field, TRUE);
                    g_ptr_array_free(fields, TRUE);
                    g_ptr_array_free(records, TRUE);
                    g_array_free(*lines, TRUE);
                    *lines = NULL;
                    return NULL;
                }
                if (*p == '"' && p[1] != '"')
                    break;
                if (*p == '"')
                    p++;
                if (*p == '\n')
                    line++;
                g_string_append_c(field, *p);
            }
            p++;
            continue;
        }
        if (*p == ',' || *p == '\n' || (*p == '\r' && p[1] == '\n')) {
            g_ptr_array_add(fields, g_strdup(field->str));
            g_string_truncate(field, 0);
            if (*p == '\r')
                p++;
            if (*p == '\n') {
                g_ptr_array_add(fields, NULL);
                g_ptr_array_add(records, g_ptr_array_free(fields, FALSE));
                g_array_append_val(*lines, start);
                fields = g_ptr_array_new_with_free_func(g_free);
                start = ++line;
            }
            p++;
            continue;
        }
        g_string_append_c(field, *p++);
    }
    /* A last record without its line break. */
    if (field->len || fields->len) {
        g_ptr_array_add(fields, g_strdup(field->str));
        g_ptr_array_add(fields, NULL);
        g_ptr_array_add(records, g_ptr_array_free(fields, FALSE));
        g_array_append_val(*lines, start);
    } else {
        g_ptr_array_free(fields, TRUE);
    }
    g_string_free(field, TRUE);
    return records;
}
