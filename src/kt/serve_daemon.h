/* SPDX-License-Identifier: MIT */
/* The card-daemon server's state, shared by its connection loop (serve_daemon.c), its operations
 * (serve_daemon_ops.c) and its clock governor model (serve_clocks.c). */
#ifndef NPUKIT_KT_SERVE_DAEMON_H
#define NPUKIT_KT_SERVE_DAEMON_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carrier.h"
#include "npukit/kt_remote.h"
#include "npukit/kt_serve.h"

enum {
    MAX_LEASES = 64,
    MAX_RUNS = 64,
    SERVE_MAX_BLOCK = KT_DAEMON_MAX_BLOCK, /* bytes of one read_block or write_block */
    /* The largest request an op can need: a write_block's hex and a little JSON around it.
     * Anything longer is refused from its header, before a byte of it is stored. */
    SERVE_MAX_REQUEST = 2 * SERVE_MAX_BLOCK + 4096,
    GOV_MESHES = 32, /* meshes the clock governor tracks (a run names meshes by bit) */
    /* A read_block or write_block moves this much between the machine and the server per turn
     * of the loop, and a read_block's reply goes out as the hex of this much per turn, the
     * other clients' requests between (serve_block.c). */
    SERVE_TURN_BYTES = 64 * 1024,
};

/* A read_block or write_block under way, a bounded chunk per turn of the loop (serve_block.c). */
typedef struct block_job {
    bool active;
    bool read;    /* read_block: the machine's bytes gather in buf, then go out as the reply */
    cJSON *req;   /* its request, for the reply's id (a write's bytes are decoded inside it) */
    uint8_t *buf; /* a read's bytes (the job's own), or a write's (inside req) */
    uint64_t addr;
    size_t len, off;
} block_job;

/* A read_block's reply after the head of its frame: the bytes' hex a piece per turn as the
 * client takes it, then the frame's tail (bytes NULL: none under way). */
typedef struct hex_stream {
    uint8_t *bytes; /* the stream's own */
    size_t len, off;
    size_t cap; /* the bytes of the client's out buffer the pieces are encoded into */
} hex_stream;

typedef struct client {
    kt_carrier c;
    unsigned id;
    uint8_t hdr[4];
    size_t have, need; /* bytes of the header or body read so far, and the body's length */
    char *body;        /* grows as the body arrives (NULL while reading the header) */
    size_t body_cap;
    char *out; /* replies queued for the client: out[out_off, out_len) */
    size_t out_len, out_off;
    bool closing;           /* drop once the queued reply is out */
    int64_t frame_deadline; /* a started frame must be whole by then (-1: none started) */
    int64_t out_deadline;   /* the queued reply must be taken by then */
    int64_t idle_deadline;  /* the next request must start by then (-1: never) */
    int64_t work_deadline;  /* the next request that is work must end by then (-1: never) */
    bool asked_only;        /* requests since the last work were all questions (hello, ...) */
    char peer[64];          /* the peer's address: slots are shared out per address */
    bool parsing;           /* its frame is with the parsing thread (serve_parse.c) */
    block_job block;        /* its read_block or write_block under way */
    hex_stream hex;         /* the rest of its read_block's reply, after out */
} client;

/* A frame handed to the parsing thread, and what became of it. */
typedef struct parse_job {
    struct parse_job *next;
    unsigned client; /* the client's id: it may be gone by the time the job is back */
    char *body;      /* the frame (freed once parsed) */
    size_t len;
    cJSON *req;       /* the parsed request, or NULL when refused */
    npk_status status; /* the refusal */
    char why[512];
    uint8_t *blob; /* write_block: its data as bytes, decoded in place inside req (or NULL) */
    size_t blob_len;
} parse_job;

typedef struct lease {
    uint64_t id, base, end;
    unsigned client, mesh;
} lease;

typedef struct run_token {
    uint64_t id;
    unsigned client, mesh_mask;
    int level;
} run_token;

/* The clock governor as the card daemon keeps it: every mesh rests at the idle profile; a run
 * raises the meshes it names to its level until it ends, and a mesh drops back once idle for
 * idle_ms. The simulator's timing does not depend on it (its clock is the preset's). */
typedef struct governor {
    int current[GOV_MESHES]; /* index into the profile table */
    int64_t last_active[GOV_MESHES];
    unsigned idle_ms;
} governor;

typedef struct server {
    const kt_serve_target *tg;
    client *cl[KT_SERVE_MAX_CLIENTS];
    unsigned ncl, next_client;
    lease leases[MAX_LEASES];
    unsigned nleases;
    run_token runs[MAX_RUNS];
    unsigned nruns;
    uint64_t next_lease, next_run;
    governor gov;
    bool stop;
    /* The Python exception name an op chose for its error (NULL: from the status). */
    const char *err_type;
    void (*log)(const char *line);
    /* The parsing thread (serve_parse.c), started at the first large frame: its queues, and a
     * pipe whose read end the loop polls for jobs coming back. */
    bool parser_running, parser_stop;
    pthread_t parser;
    pthread_mutex_t parse_lock;
    pthread_cond_t parse_wake;
    parse_job *todo, *parsed;
    int wake[2];
} server;

/* The parsing thread (serve_parse.c). */
npk_status kt_daemon_parser_start(server *sv);
/* Queue a job (the loop gives up the job until kt_daemon_parsed returns it). */
void kt_daemon_parse_later(server *sv, parse_job *j);
/* The jobs parsed since the last call (a list through ->next; NULL: none). */
parse_job *kt_daemon_parsed(server *sv);
void kt_daemon_parse_job_free(parse_job *j);
void kt_daemon_parser_stop(server *sv);

/* Blocks a chunk per turn (serve_block.c). */
/* A read of n bytes at addr starts: the op's request is handed over (kt_block_adopt) once the op
 * returns; ENOMEM when the bytes cannot be had. */
npk_status kt_block_read_start(block_job *b, uint64_t addr, size_t n);
/* A write of the n bytes at `bytes` (decoded inside req, which the job now owns) to addr. */
void kt_block_write_start(block_job *b, cJSON *req, uint8_t *bytes, size_t n, uint64_t addr);
/* True when an op started the job and its request is still the caller's: the job takes it. */
bool kt_block_adopt(block_job *b, cJSON *req);
/* The next chunk on t: true while more remain, false once the job is done (*s: how it ended). */
bool kt_block_step(block_job *b, kt_transport *t, npk_status *s);
/* A finished read's bytes become the stream of its reply, after a head of head_cap bytes. */
void kt_block_to_stream(block_job *b, hex_stream *h, size_t head_cap);
/* The job ends (its request and bytes freed); nothing when none is under way. */
void kt_block_end(block_job *b);
/* The next piece of the reply into *out (the client's out buffer, grown once to the largest
 * piece; *len: the piece's bytes), the frame's tail after the last: false when out of memory. */
bool kt_hex_piece(hex_stream *h, char **out, size_t *len);
/* The bytes still to come (the tail included); 0 when none is under way. */
size_t kt_hex_left(const hex_stream *h);
void kt_hex_end(hex_stream *h);

/* One operation by name (NULL: unknown); fills *value (NULL = JSON null) or fails. *work: the
 * op counts as work for the idle timeout (it is not only a question about the server). */
typedef npk_status (*kt_daemon_op_fn)(server *sv, client *cl, const cJSON *req, cJSON **value);
kt_daemon_op_fn kt_daemon_op(const char *name, bool *work);
/* The exception type an error reply names for a status ("ValueError", "TimeoutError", ...). */
const char *kt_daemon_error_type(npk_status s);

/* The clock governor (serve_clocks.c). */
/* Every mesh at the idle profile; idle_ms is the window (0: upstream's default, 10 s). */
void kt_gov_init(governor *g, unsigned idle_ms);
/* Profile index for a level name, or -1. */
int kt_gov_level(const char *name);
const char *kt_gov_level_name(int level);
/* Raise `mask`'s meshes to `level` for a run. */
void kt_gov_raise(governor *g, unsigned mask, int level);
/* A run ended: its meshes count as active now (they drop after the idle window). */
void kt_gov_touch(governor *g, unsigned mask);
/* Drop meshes idle past the window and held by no run (runs' union in `held`). */
void kt_gov_tick(governor *g, unsigned meshes, unsigned held);
/* {"0": {"noc": MHz, "mat2x": MHz, "vec": MHz, "mag": MHz}, ...} for the clocks op. */
cJSON *kt_gov_clocks(const governor *g, unsigned meshes);
/* The status op's "governor" object. */
cJSON *kt_gov_status(const server *sv);

#endif
