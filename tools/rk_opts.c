/* Parsing of the shared rk shape options. */
#include "rk_opts.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_synth.h"

void rk_shape_opts_init(rk_shape_opts *o)
{
    memset(o, 0, sizeof *o);
    o->in = NPK_PREC_FP16;
    o->out = NPK_PREC_FP32;
    o->mode = -1;
    o->device = "auto";
}

int rk_shape_opt(rk_shape_opts *o, const char *opt, const char *v)
{
    if (!strcmp(opt, "--dtype") || !strcmp(opt, "--out")) {
        npk_rk_prec p;
        if (!npk_rk_prec_parse(v, &p)) {
            fprintf(stderr, "npukit: %s '%s' is not a precision (fp16, int8, int4, fp32, ...)\n",
                    opt, v);
            return -1;
        }
        bool in = opt[2] == 'd';
        *(in ? &o->in : &o->out) = p;
        *(in ? &o->have_in : &o->have_out) = true;
    } else if (!strcmp(opt, "-m") || !strcmp(opt, "-k") || !strcmp(opt, "-n")) {
        if (!cli_u32(opt, v, opt[1] == 'm' ? &o->m : opt[1] == 'k' ? &o->k : &o->n))
            return -1;
    } else if (!strcmp(opt, "--mode")) {
        if (strcmp(v, "line") && strcmp(v, "cube")) {
            fprintf(stderr, "npukit: --mode '%s' is not line or cube\n", v);
            return -1;
        }
        o->mode = !strcmp(v, "line") ? NPK_MODE_LINE : NPK_MODE_CUBE;
    } else if (!strcmp(opt, "--soc")) {
        if (!(o->soc = npk_rk_soc_find(v))) {
            fprintf(stderr, "npukit: --soc '%s' is not rk3588 or rk3576\n", v);
            return -1;
        }
        /* On stderr, so --json output stays clean: an unvalidated row's numbers are partly
         * assumed, and a program for the wrong part may complete and write nothing. */
        if (!o->soc->validated)
            fprintf(stderr, "npukit: warning: %s is not validated on a board (%s)\n",
                    o->soc->name, o->soc->source);
    } else if (!strcmp(opt, "--cores")) {
        if (!cli_int(opt, v, 1, 64, &o->cores))
            return -1;
    } else if (!strcmp(opt, "--chain")) {
        if (!cli_int(opt, v, 1, 64, &o->chain))
            return -1;
    } else if (!strcmp(opt, "--device")) {
        o->device = v;
    } else {
        return 0;
    }
    return 1;
}

const char *rk_json_escape(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (; *s && o + 7 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            o += (size_t)snprintf(buf + o, len - o, "\\%c", c);
        else if (c < 0x20)
            o += (size_t)snprintf(buf + o, len - o, "\\u%04x", c);
        else
            buf[o++] = (char)c;
    }
    buf[o] = 0;
    return buf;
}

bool rk_opt_takes_value(const char *opt, const char *const *own)
{
    static const char *const shared[] = {"--dtype", "--out",   "-m",     "-k",     "-n",
                                         "--mode",  "--soc",   "--cores", "--chain", "--device",
                                         NULL};
    for (const char *const *p = shared; *p; p++)
        if (!strcmp(opt, *p))
            return true;
    for (const char *const *p = own; p && *p; p++)
        if (!strcmp(opt, *p))
            return true;
    return false;
}

bool rk_shape_complete(rk_shape_opts *o, const char *cmd)
{
    if (!o->have_in || !o->m || !o->k || !o->n) {
        fprintf(stderr, "npukit: %s needs --dtype, -m, -k and -n (each >= 1)\n", cmd);
        return false;
    }
    if (!o->have_out)
        o->out = npk_rk_default_out(o->in);
    return true;
}

int rk_opt_value(const char *cmd, int argc, char **argv, int *i, const char *const *own,
                 rk_shape_opts *so, const char **value, void (*usage)(FILE *))
{
    const char *opt = argv[*i];
    if (!rk_opt_takes_value(opt, own)) {
        fprintf(stderr, "npukit: %s: unknown option '%s'\n", cmd, opt);
        usage(stderr);
        return -1;
    }
    if (!(*value = cli_value(argc, argv, i)))
        return -1;
    return rk_shape_opt(so, opt, *value);
}
