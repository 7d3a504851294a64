/* SPDX-License-Identifier: MIT */
/* Every kernel-interface front end refuses a request it has no row for, by name, and never runs
 * it as another: the rknpu card and render nodes and the rocket node of the simulator answer the
 * DRM core's errno (ENOTTY for another ioctl type, EINVAL for an unknown number) and their report
 * names the number and the requests they do answer; the rknpu-over-rocket device backend answers
 * the same errno values. Known requests are answered as before. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "npukit/rknpu_uapi.h"
#include "npukit/rksim.h"
#include "npukit/rocket_uapi.h"
#include "rk/device/rk_device.h"
#include "rk/device/rk_device_sim.h"
#include "rksim/requests.h"
#include "rksim/rksim_rocket.h"

/* Numbers a front end does not answer: DRM core ones (GEM_CLOSE is rocket's only, PRIME_FD_TO_
 * HANDLE rknpu's only), one just past the driver's last request, and the top. */
static const unsigned rknpu_unknown[] = {0x01, 0x09, 0x20, 0x40 + RKNPU_NR_MEM_SYNC + 1, 0xff};
static const unsigned rocket_unknown[] = {0x01, 0x2e, 0x20,
                                          ROCKET_DRM_COMMAND_BASE + ROCKET_NR_FINI_BO + 1, 0xff};
enum { UNKNOWN = sizeof rknpu_unknown / sizeof rknpu_unknown[0] };

static unsigned long drm_request(unsigned type, unsigned nr)
{
    return RKNPU_IOC(RKNPU_IOC_READ | RKNPU_IOC_WRITE, type, nr, 16);
}

/* The report after a refused request: rejected, naming the request number and what it answers. */
static void check_named(rksim *sim, const char *driver, unsigned long request, unsigned nr)
{
    const rksim_report *r = rksim_last_report(sim);
    CHECK_EQ(r->outcome, RKSIM_REJECTED);
    char want[96];
    snprintf(want, sizeof want, "%s ioctl 0x%lx: request number 0x%02x is none", driver, request,
             nr);
    CHECK_STR_HAS(r->message, want);
    CHECK_STR_HAS(r->message, "it answers VERSION (0x00)");
}

static void check_other_type(rksim *sim, const char *driver, unsigned long request)
{
    const rksim_report *r = rksim_last_report(sim);
    CHECK_EQ(r->outcome, RKSIM_REJECTED);
    char want[96];
    snprintf(want, sizeof want, "%s ioctl 0x%lx: type 0x78 is not DRM's 'd'", driver, request);
    CHECK_STR_HAS(r->message, want);
}

static void test_rknpu_nodes(rksim *sim)
{
    static const rksim_node nodes[] = {RKSIM_NODE_CARD, RKSIM_NODE_RENDER};
    uint8_t arg[16] = {0};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        for (size_t k = 0; k < UNKNOWN; k++) {
            unsigned long req = drm_request('d', rknpu_unknown[k]);
            CHECK_EQ(rksim_node_ioctl(sim, nodes[i], req, arg), -EINVAL);
            check_named(sim, "rknpu", req, rknpu_unknown[k]);
            CHECK(rksim_request_of(&rksim_node_requests, req) == NULL);
        }
        unsigned long other = drm_request('x', 0x40 + RKNPU_NR_ACTION);
        CHECK_EQ(rksim_node_ioctl(sim, nodes[i], other, arg), -ENOTTY);
        check_other_type(sim, "rknpu", other);
        /* a known request still answers */
        struct rknpu_action a = {.flags = RKNPU_GET_DRV_VERSION};
        CHECK_EQ(rksim_node_ioctl(sim, nodes[i], DRM_IOCTL_RKNPU_ACTION, &a), 0);
        CHECK_EQ(a.value, RKNPU_DRV_VERSION_098);
        /* an action the driver does not know: its EINVAL, named */
        a.flags = 0x7777;
        CHECK_EQ(rksim_node_ioctl(sim, nodes[i], DRM_IOCTL_RKNPU_ACTION, &a), -EINVAL);
        CHECK_STR_HAS(rksim_last_report(sim)->message, "flags 30583 is no action of the driver");
    }
}

/* Every row of a table is found by its own number. */
static void check_rows(const rksim_requests *t)
{
    for (size_t i = 0; i < t->n; i++)
        CHECK(rksim_request_of(t, drm_request('d', t->rows[i].nr)) == &t->rows[i]);
}

static void test_rocket_node(rksim *sim)
{
    int file = rksim_rocket_open(sim);
    CHECK(file >= 0);
    uint8_t arg[16] = {0};
    for (size_t k = 0; k < UNKNOWN; k++) {
        unsigned long req = drm_request('d', rocket_unknown[k]);
        CHECK_EQ(rksim_rocket_ioctl(sim, file, req, arg), -EINVAL);
        check_named(sim, "rocket", req, rocket_unknown[k]);
        CHECK(rksim_request_of(&rksim_rocket_requests, req) == NULL);
    }
    unsigned long other = drm_request('x', ROCKET_DRM_COMMAND_BASE + ROCKET_NR_FINI_BO);
    CHECK_EQ(rksim_rocket_ioctl(sim, file, other, arg), -ENOTTY);
    check_other_type(sim, "rocket", other);
    /* FINI_BO, the row the dispatch used to fall to for any number, still answers as itself */
    struct drm_rocket_fini_bo f = {.handle = 12345};
    CHECK_EQ(rksim_rocket_ioctl(sim, file, DRM_IOCTL_ROCKET_FINI_BO, &f), -ENOENT);
    rksim_rocket_close(sim, file);
}

/* The device layer's rknpu requests carried out with rocket's: the same errno values. */
static void test_rocket_backend(void)
{
    npk_rk_device *d;
    CHECK_EQ(npk_rk_device_open_sim_rocket(NULL, &d), NPK_OK);
    if (!d)
        return;
    uint8_t arg[16] = {0};
    for (size_t k = 0; k < UNKNOWN; k++)
        CHECK_EQ(npk_rk_device_ioctl(d, drm_request('d', rknpu_unknown[k]), arg), -EINVAL);
    CHECK_EQ(npk_rk_device_ioctl(d, drm_request('x', 0x40 + RKNPU_NR_ACTION), arg), -ENOTTY);
    struct rknpu_action a = {.flags = RKNPU_ACT_RESET};
    CHECK_EQ(npk_rk_device_ioctl(d, DRM_IOCTL_RKNPU_ACTION, &a), 0);
    npk_rk_device_close(d);
}

int main(void)
{
    rksim_config cfg;
    rksim_config_default(&cfg);
    rksim *sim;
    CHECK_EQ(rksim_create(&cfg, &sim), NPK_OK);
    test_rknpu_nodes(sim);
    test_rocket_node(sim);
    rksim_destroy(sim);
    check_rows(&rksim_node_requests);
    check_rows(&rksim_rocket_requests);
    test_rocket_backend();
    return check_done();
}
