/* SPDX-License-Identifier: MIT */
/* `npukit kt link`: the interlink of a simulated multi-mesh card — set runtime mesh ids, ring
 * doorbells between meshes, optionally clear the doorbell counts and sticky faults, then print
 * every mesh's capability word, doorbell counts, link counters, credit state and sticky faults,
 * read through its own control window as a driver reads them. */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kt_card_cli.h"
#include "kt/kt_interlink.h"
#include "kt/hw/kt_interlink_hw.h"

enum { MAX_RINGS = 16, SETTLE_CYCLES = 400 };

typedef struct ring_req {
    unsigned from, to, tag;
} ring_req;

typedef struct link_args {
    ring_req rings[MAX_RINGS];
    unsigned n_rings;
    unsigned id_of[KT_IL_MAX_MESHES]; /* ~0: keep the id the card gave */
} link_args;

/* One decimal field of FROM:TO[:TAG], ending at `stop` (':' or the end); NULL when malformed. */
static const char *ring_field(const char *p, char stop, unsigned max, unsigned *out)
{
    size_t len = strcspn(p, ":");
    uint64_t v;
    if (cli_number_scan(p, len, false, &v) != CLI_NUM_OK || v > max ||
        (p[len] != stop && !(stop == ':' && !p[len])))
        return NULL;
    *out = (unsigned)v;
    return p + len;
}

static bool parse_ring(const cli_opt *row, const char *text, const char *cmd)
{
    link_args *l = row->dest;
    if (l->n_rings == MAX_RINGS) {
        fprintf(stderr, "npukit %s: --ring '%s': at most %d --ring options\n", cmd, text,
                MAX_RINGS);
        return false;
    }
    ring_req *r = &l->rings[l->n_rings];
    r->tag = 0;
    const char *p = ring_field(text, ':', KT_IL_MAX_MESHES - 1, &r->from);
    if (p && *p == ':')
        p = ring_field(p + 1, ':', KT_IL_MAX_MESHES - 1, &r->to);
    else
        p = NULL;
    if (p && *p == ':')
        p = ring_field(p + 1, '\0', UINT8_MAX, &r->tag);
    if (!p || *p) {
        fprintf(stderr,
                "npukit %s: --ring '%s': expected FROM:TO[:TAG] with meshes 0..%d, tag 0..%d\n",
                cmd, text, KT_IL_MAX_MESHES - 1, UINT8_MAX);
        return false;
    }
    l->n_rings++;
    return true;
}

/* "M:ID": give mesh M the runtime mesh id ID (both 0..3). */
static bool parse_mesh_id(const cli_opt *row, const char *text, const char *cmd)
{
    link_args *l = row->dest;
    unsigned m, id;
    const char *p = ring_field(text, ':', KT_IL_MAX_MESHES - 1, &m);
    if (p && *p == ':')
        p = ring_field(p + 1, '\0', KT_IL_MAX_MESHES - 1, &id);
    else
        p = NULL;
    if (!p || *p) {
        fprintf(stderr, "npukit %s: --mesh-id '%s': expected MESH:ID, both 0..%d\n", cmd, text,
                KT_IL_MAX_MESHES - 1);
        return false;
    }
    l->id_of[m] = id;
    return true;
}

/* One mesh's interlink: a line of text, or (meshes not NULL) an object in that array. */
static void print_mesh(kt_card_cli *c, unsigned m, cJSON *meshes)
{
    uint64_t base = kt_machine_ctrl_base(c->m, m);
    kt_il_caps caps = {0};
    kt_il_doorbells db = {0};
    kt_il_counters k = {0};
    uint8_t faults = 0;
    kt_il_detect(c->t, base, &caps);
    kt_il_read_doorbells(c->t, base, &db);
    kt_il_read_counters(c->t, base, &k);
    kt_il_read_faults(c->t, base, &faults);
    char ftxt[64];
    kt_il_faults_text(faults, ftxt, sizeof ftxt);
    if (meshes) {
        cJSON *o = json_item(meshes);
        json_u64(o, "mesh", m);
        json_bool(o, "present", caps.present);
        json_u64(o, "mesh_id", caps.mesh_id);
        json_u64(o, "caps", caps.raw);
        cJSON *received = json_arr(o, "received"), *sent = json_arr(o, "sent");
        for (unsigned i = 0; i < 4; i++) {
            json_push_u64(received, db.received[i]);
            json_push_u64(sent, db.sent[i]);
        }
        json_push_pair(json_arr(o, "link_tx"), k.link_tx[0], k.link_tx[1]);
        json_push_pair(json_arr(o, "link_rx"), k.link_rx[0], k.link_rx[1]);
        json_push_pair(json_arr(o, "stalls"), k.stalls[0], k.stalls[1]);
        json_u64(o, "forwarded", k.forwarded);
        json_push_pair(json_arr(o, "credits"), k.credits[0], k.credits[1]);
        json_u64(o, "doorbells_sent", k.doorbells_sent);
        json_u64(o, "egress_blocks", k.egress_blocks);
        json_str(o, "faults", ftxt);
        return;
    }
    if (!caps.present) {
        printf("mesh %u: no interlink (capability word 0)\n", m);
        return;
    }
    printf("mesh %u: interlink 0x%016" PRIx64 ", mesh id %u, faults %s\n", m, caps.raw,
           caps.mesh_id, ftxt);
    printf("  doorbells received from mesh 0..3: %u %u %u %u; sent to: %u %u %u %u\n",
           db.received[0], db.received[1], db.received[2], db.received[3], db.sent[0], db.sent[1],
           db.sent[2], db.sent[3]);
    printf("  link 0 (down): tx %" PRIu64 " rx %" PRIu64 " stalls %" PRIu64
           " credits %u; link 1 (up): tx %" PRIu64 " rx %" PRIu64 " stalls %" PRIu64
           " credits %u\n",
           k.link_tx[0], k.link_rx[0], k.stalls[0], k.credits[0], k.link_tx[1], k.link_rx[1],
           k.stalls[1], k.credits[1]);
    printf("  forwarded %" PRIu64 ", doorbells sent %" PRIu64 ", local egress blocks %" PRIu64 "\n",
           k.forwarded, k.doorbells_sent, k.egress_blocks);
}

int kt_link_main(int argc, char **argv)
{
    kt_card_cli c = {0};
    c.meshes = 2;
    link_args l = {.id_of = {~0u, ~0u, ~0u, ~0u}};
    bool clear = false;
    const cli_opt own[] = {
        {.name = "--ring",
         .kind = CLI_CUSTOM,
         .dest = &l,
         .parse = parse_ring,
         .meta = "FROM:TO[:TAG]",
         .help = "mesh FROM rings the mesh whose id is TO (repeatable)"},
        {.name = "--mesh-id",
         .kind = CLI_CUSTOM,
         .dest = &l,
         .parse = parse_mesh_id,
         .meta = "MESH:ID",
         .help = "give a mesh a runtime id first (repeatable)"},
        {.name = "--clear",
         .kind = CLI_FLAG,
         .dest = &clear,
         .help = "clear the doorbell counts and sticky faults after ringing"},
        CLI_END,
    };
    const cli_opt *tables[] = {own, kt_card_cli_rows(&c), kt_cli_rows(&c.o), NULL};
    cli_spec spec = {
        .cmd = "kt link",
        .synopsis = "[options]",
        .about = "ring doorbells between the meshes of a simulated card (default 2 meshes), "
                 "then print every mesh's interlink state",
        .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    ring_req *rings = l.rings;
    unsigned n_rings = l.n_rings, *id_of = l.id_of;
    for (unsigned m = 0; m < 4; m++)
        if (id_of[m] != ~0u && m >= c.meshes) {
            fprintf(stderr, "npukit kt link: --mesh-id %u:%u names a mesh beyond the card's %u\n",
                    m, id_of[m], c.meshes);
            return 2;
        }
    /* FROM is a mesh's position on the card; TO is the runtime id a doorbell is addressed to. */
    bool id_taken[4] = {false};
    for (unsigned m = 0; m < c.meshes && m < 4; m++)
        id_taken[id_of[m] != ~0u ? id_of[m] : m] = true;
    for (unsigned i = 0; i < n_rings; i++)
        if (rings[i].from >= c.meshes || !id_taken[rings[i].to]) {
            const char *why =
                rings[i].from >= c.meshes ? "no mesh at that position" : "no mesh has that id";
            fprintf(stderr, "npukit kt link: --ring %u:%u names a mesh beyond the card's %u (%s)\n",
                    rings[i].from, rings[i].to, c.meshes, why);
            return 2;
        }
    if ((rc = kt_card_cli_open(&c)))
        return rc;
    for (unsigned m = 0; m < c.meshes; m++)
        if (id_of[m] != ~0u && kt_il_set_mesh_id(c.t, kt_machine_ctrl_base(c.m, m), id_of[m])) {
            rc = cli_lib_error("kt link: --mesh-id");
            kt_card_cli_close(&c);
            return rc;
        }
    for (unsigned i = 0; i < n_rings; i++)
        if (kt_il_ring(c.t, kt_machine_ctrl_base(c.m, rings[i].from), rings[i].to,
                       (uint8_t)rings[i].tag)) {
            rc = cli_lib_error("kt link: ring");
            kt_card_cli_close(&c);
            return rc;
        }
    kt_machine_step(c.m, SETTLE_CYCLES);             /* let the doorbells cross */
    for (unsigned m = 0; clear && m < c.meshes; m++) /* inbound doorbell counts and sticky faults */
        if (kt_il_clear(c.t, kt_machine_ctrl_base(c.m, m), true, true)) {
            rc = cli_lib_error("kt link: --clear");
            kt_card_cli_close(&c);
            return rc;
        }
    int out = 0;
    if (c.o.json) {
        cJSON *doc = json_doc();
        cJSON *meshes = json_arr(doc, "meshes");
        for (unsigned m = 0; m < c.meshes; m++)
            print_mesh(&c, m, meshes);
        kt_card_cli_json_counts(doc, &c);
        out = json_print(doc, "kt link");
    } else {
        for (unsigned m = 0; m < c.meshes; m++)
            print_mesh(&c, m, NULL);
        kt_card_cli_print_counts(&c);
    }
    bool fault = kt_card_cli_report_fault(&c, "kt link");
    return kt_card_cli_close(&c) || fault || out ? 1 : 0;
}
