/* SPDX-License-Identifier: MIT */
/* The card daemon's parsing thread: a large frame (a write_block's 8 MiB of hex) takes the
 * single-threaded loop a long while to check and parse, and every other client would wait for
 * it. Such frames are handed here; the loop goes on serving the others and runs the parsed
 * request when it comes back. Parsing touches nothing but the frame, so it needs no lock beyond
 * the queues'; the machine is only ever driven from the loop. A write_block's data is checked
 * and decoded to bytes here too, in place in the parsed request, so the loop only writes it. */
#define _POSIX_C_SOURCE 200809L /* pipe, fcntl */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hexcodec.h"
#include "jsonframe.h"
#include "serve_daemon.h"

enum {
    /* The shape of the largest request an op reads (as serve_daemon.c checks inline). */
    PARSE_DEPTH = 2,
    PARSE_VALUES = 64,
};

/* write_block's data as bytes, decoded in place: all of it checked first (a string that is not
 * whole bytes of hex is left as it is for the op to refuse in its own words). */
static void decode_block(parse_job *j)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j->req, "op");
    cJSON *d = cJSON_GetObjectItemCaseSensitive(j->req, "data");
    if (!cJSON_IsString(op) || strcmp(op->valuestring, "write_block") || !cJSON_IsString(d))
        return;
    size_t n = strlen(d->valuestring);
    if (n % 2 || strspn(d->valuestring, "0123456789abcdefABCDEF") != n)
        return;
    if (kt_hex_decode(d->valuestring, n, (uint8_t *)d->valuestring)) {
        j->blob = (uint8_t *)d->valuestring;
        j->blob_len = n / 2;
    }
}

static void parse_one(parse_job *j)
{
    j->status = kt_frame_shape(j->body, j->len, PARSE_DEPTH, PARSE_VALUES);
    if (!j->status)
        j->status = kt_frame_parse(j->body, j->len, &j->req);
    if (j->status)
        snprintf(j->why, sizeof j->why, "%s", npk_last_error());
    else
        decode_block(j);
    free(j->body);
    j->body = NULL;
}

static void *parser_main(void *arg)
{
    server *sv = arg;
    pthread_mutex_lock(&sv->parse_lock);
    for (;;) {
        while (!sv->todo && !sv->parser_stop)
            pthread_cond_wait(&sv->parse_wake, &sv->parse_lock);
        if (sv->parser_stop)
            break;
        parse_job *j = sv->todo;
        sv->todo = j->next;
        pthread_mutex_unlock(&sv->parse_lock);
        parse_one(j);
        pthread_mutex_lock(&sv->parse_lock);
        j->next = sv->parsed;
        sv->parsed = j;
        /* one byte tells the loop's poll that a job is back */
        (void)!write(sv->wake[1], "", 1);
    }
    pthread_mutex_unlock(&sv->parse_lock);
    return NULL;
}

npk_status kt_daemon_parser_start(server *sv)
{
    if (sv->parser_running)
        return NPK_OK;
    if (pipe(sv->wake))
        return npk_fail(NPK_EIO, "daemon server: a pipe for the parsing thread: failed");
    for (int i = 0; i < 2; i++)
        fcntl(sv->wake[i], F_SETFL, O_NONBLOCK), fcntl(sv->wake[i], F_SETFD, FD_CLOEXEC);
    pthread_mutex_init(&sv->parse_lock, NULL);
    pthread_cond_init(&sv->parse_wake, NULL);
    if (pthread_create(&sv->parser, NULL, parser_main, sv)) {
        close(sv->wake[0]);
        close(sv->wake[1]);
        sv->wake[0] = sv->wake[1] = -1;
        return npk_fail(NPK_EIO, "daemon server: the parsing thread did not start");
    }
    sv->parser_running = true;
    return NPK_OK;
}

void kt_daemon_parse_later(server *sv, parse_job *j)
{
    pthread_mutex_lock(&sv->parse_lock);
    j->next = NULL;
    parse_job **tail = &sv->todo;
    while (*tail)
        tail = &(*tail)->next;
    *tail = j; /* first come, first parsed */
    pthread_cond_signal(&sv->parse_wake);
    pthread_mutex_unlock(&sv->parse_lock);
}

parse_job *kt_daemon_parsed(server *sv)
{
    if (!sv->parser_running)
        return NULL;
    char drain[64];
    while (read(sv->wake[0], drain, sizeof drain) > 0) {
    }
    pthread_mutex_lock(&sv->parse_lock);
    parse_job *j = sv->parsed;
    sv->parsed = NULL;
    pthread_mutex_unlock(&sv->parse_lock);
    return j;
}

void kt_daemon_parse_job_free(parse_job *j)
{
    free(j->body);
    cJSON_Delete(j->req);
    free(j);
}

void kt_daemon_parser_stop(server *sv)
{
    if (!sv->parser_running)
        return;
    pthread_mutex_lock(&sv->parse_lock);
    sv->parser_stop = true;
    pthread_cond_signal(&sv->parse_wake);
    pthread_mutex_unlock(&sv->parse_lock);
    pthread_join(sv->parser, NULL);
    for (parse_job *lists[2] = {sv->todo, sv->parsed}, **l = lists; l < lists + 2; l++)
        while (*l) {
            parse_job *next = (*l)->next;
            kt_daemon_parse_job_free(*l);
            *l = next;
        }
    sv->todo = sv->parsed = NULL;
    close(sv->wake[0]);
    close(sv->wake[1]);
    pthread_cond_destroy(&sv->parse_wake);
    pthread_mutex_destroy(&sv->parse_lock);
    sv->parser_running = false;
}
