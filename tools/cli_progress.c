/* SPDX-License-Identifier: MIT */
/* The CLI's progress line (cli_progress.h). */
#define _POSIX_C_SOURCE 200809L /* isatty, fileno */
#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/measure.h"

bool cli_progress_wanted(bool quiet) { return !quiet && isatty(fileno(stderr)); }

/* NPUKIT_PROGRESS_AFTER_MS: when the line first shows (default CLI_PROGRESS_AFTER_MS); 0 shows
 * it from the first task, which is how a test sees it whatever the machine's speed. */
static uint64_t after_ns(void)
{
    const char *e = getenv("NPUKIT_PROGRESS_AFTER_MS");
    char *end;
    unsigned long v = e && *e ? strtoul(e, &end, 10) : 0;
    if (!e || !*e || *end || v > 3600000ul)
        v = CLI_PROGRESS_AFTER_MS;
    return (uint64_t)v * 1000000u;
}

void cli_progress_start(cli_progress *p, const char *what)
{
    *p = (cli_progress){.what = what, .t0_ns = npk_now_ns(), .after_ns = after_ns()};
}

void cli_progress_report(void *user, uint32_t done, uint32_t total)
{
    cli_progress *p = user;
    uint64_t now = npk_now_ns();
    double ran = (double)(now - p->t0_ns) * 1e-9;
    if (now - p->t0_ns < p->after_ns ||
        (p->shown && now - p->last_ns < (uint64_t)CLI_PROGRESS_EVERY_MS * 1000000u &&
         done < total))
        return;
    double rate = ran > 0 ? done / ran : 0;
    double left = rate > 0 ? (total - done) / rate : 0;
    /* \r and erase-to-end: the line is redrawn in place, whatever was longer before */
    fprintf(stderr, "\r\033[K%s: %u/%u tasks (%u%%), %.1f tasks/s, %.0f s left", p->what, done,
            total, total ? (unsigned)(100.0 * done / total) : 100u, rate, left);
    fflush(stderr);
    p->shown = true;
    p->last_ns = now;
}

void cli_progress_end(cli_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = false;
}
