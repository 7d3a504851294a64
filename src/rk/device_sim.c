/* The simulator backend: the same requests answered by rksim's kernel-interface front end. */
#include <stdlib.h>
#include <string.h>

#include "rk/device_backend.h"

static int s_ioctl(void *ctx, unsigned long request, void *arg)
{
    return rksim_ioctl(ctx, request, arg);
}

static void *s_map(void *ctx, uint64_t offset, size_t length, int *err)
{
    return rksim_mmap(ctx, offset, length, err);
}

static void s_unmap(void *ctx, void *addr, size_t length) { rksim_munmap(ctx, addr, length); }

static void s_close(void *ctx) { rksim_destroy(ctx); }

static const char *s_detail(void *ctx)
{
    const rksim_report *r = rksim_last_report(ctx);
    return r->outcome == RKSIM_OK ? NULL : r->message;
}

static const npk_rk_backend sim_backend = {"sim", s_ioctl, s_map, s_unmap, s_close, s_detail};

npk_status npk_rk_device_open_sim(const rksim_config *cfg, npk_rk_device **out)
{
    rksim_config def;
    if (!cfg) {
        rksim_config_default(&def);
        rksim_config_from_env(&def);
        cfg = &def;
    }
    rksim *sim;
    npk_status s = rksim_create(cfg, &sim);
    if (s)
        return s;
    return npk_rk_device_wrap(&sim_backend, sim, "sim", sim, out);
}

npk_status npk_rk_device_open(const char *spec, npk_rk_device **out)
{
    if (!spec || !strcmp(spec, "auto")) {
        const char *env = getenv("NPUKIT_RK_DEVICE");
        if (env && *env && strcmp(env, "auto"))
            return npk_rk_device_open(env, out);
        return npk_rk_kernel_available() ? npk_rk_device_open_kernel(NULL, out)
                                         : npk_rk_device_open_sim(NULL, out);
    }
    if (!strcmp(spec, "sim"))
        return npk_rk_device_open_sim(NULL, out);
    if (!strcmp(spec, "kernel"))
        return npk_rk_device_open_kernel(NULL, out);
    return npk_rk_device_open_kernel(spec, out);
}
