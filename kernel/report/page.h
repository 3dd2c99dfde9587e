/* kernel/report/page.h — `insee report`: one self-contained HTML page from a
 * run's JSON results.
 *
 * The page needs nothing from the network: styles are inline and every
 * figure is an inline <svg> inside a <figure> with a <figcaption>. Nothing on
 * it depends on when it was made except the performance block (the wall
 * clock of the run), so two reports of one run differ only there.
 */
#ifndef INSEE_REPORT_PAGE_H
#define INSEE_REPORT_PAGE_H

#include <glib.h>

#include "report/results.h"

G_BEGIN_DECLS

/* The page as a string; NULL with *err set (INSEE_REPORT_ERROR) on bad input
   or when a figure cannot be drawn. */
char *insee_report_page(insee_results *r, GError **err);

/* The page's inline style sheet, shared with the sweep's page. */
extern const char insee_report_style[];

G_END_DECLS
#endif
