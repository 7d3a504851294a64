/* SPDX-License-Identifier: MIT */
/* The ioctl requests a kernel-interface front end answers, one row each: the rknpu nodes'
 * (frontend.c) and rocket's (rocket.c). A request with no row is refused by name, never run as
 * another. */
#ifndef NPUKIT_RKSIM_REQUESTS_H
#define NPUKIT_RKSIM_REQUESTS_H

#include <stddef.h>

#include "npukit/rksim.h"

typedef struct rksim_request {
    unsigned nr;      /* the request's number within the DRM type 'd' */
    const char *name; /* as the uAPI header names it, without DRM_IOCTL_ */
    size_t ksize;     /* the kernel-side struct: the DRM core copies min(caller's, this) bytes */
    /* what it does with the kernel-side copy; `who`: the node (rknpu) or the file (rocket) */
    int (*run)(rksim *s, int who, void *k);
} rksim_request;

typedef struct rksim_requests {
    const char *driver; /* "rknpu", "rocket" */
    const rksim_request *rows;
    size_t n;
} rksim_requests;

extern const rksim_requests rksim_node_requests;   /* frontend.c */
extern const rksim_requests rksim_rocket_requests; /* rocket.c */

/* The row of `request` (NULL: another type than DRM's, or a number with no row). */
const rksim_request *rksim_request_of(const rksim_requests *t, unsigned long request);
/* Refuse a request with no row: the report says why, naming its number and the known ones;
 * the DRM core's answer is returned (-ENOTTY for another type, -EINVAL for an unknown number). */
int rksim_request_refuse(rksim *s, const rksim_requests *t, unsigned long request);
/* The report of a request the kernel rejected (RKSIM_REJECTED), saying why. */
void rksim_report_reject(rksim *s, const char *msg);

#endif
