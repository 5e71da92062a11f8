/*
 * tox-harness: loopback throughput / latency benchmark for toxcore.
 *
 * The process forks: the parent is "alice" (sender, prints the result), the
 * child is "bob" (receiver / echo).  Each creates its own Tox instance after
 * the fork; they swap DHT key, UDP port and Tox address over a socketpair,
 * bootstrap to each other on 127.0.0.1, become friends and then run:
 *
 *   1. lossless packets, paced       (send until SENDQ, iterate, repeat)
 *   2. lossless packets, closed loop (at most W unacknowledged by bob)
 *   3. messages, paced
 *   4. messages, closed loop         (at most W without a read receipt)
 *   5. message round trips           (bob echoes, 50 warm-up + 1000 timed)
 *
 * The socketpair also carries the out-of-band control protocol (start/stop of
 * each mode, bob's arrival counts and completion time, bob's peak RSS), so
 * that no measurement traffic has to share the Tox link with bookkeeping.
 *
 * Output: exactly one JSON object on stdout; diagnostics go to stderr.
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tox/tox.h>

#define CONNECT_TIMEOUT_S 60.0
#define MODE_TIMEOUT_S 60.0
#define CONTROL_TIMEOUT_S 10.0
#define ROUND_TRIP_TIMEOUT_S 5.0
#define BOB_LIFETIME_S 900.0 /* bob gives up on his own after this long */
#define SETTLE_S 0.25        /* quiet spin between modes to drain queues */
#define WARMUP_ROUND_TRIPS 50
#define TIMED_ROUND_TRIPS 1000
#define MAX_ACK_INTERVAL 256

/*
 * Payload layout (both lossless packets and messages):
 *   [0]    packet id: 160 for data; tox.h requires 69 or 160..191 for
 *          lossless custom packets (irrelevant, but harmless, for messages)
 *   [1]    mode number, so stragglers from an earlier mode are ignored
 *   [2..5] big-endian sequence number
 *   [6..]  filler
 * Bob's closed-loop acknowledgement is a lossless packet
 *   [0] 161, [1] mode, [2..5] big-endian count of distinct arrivals.
 */
#define PACKET_ID_DATA 160
#define PACKET_ID_ACK 161
#define HEADER_BYTES 6

enum Mode {
    MODE_NONE,
    MODE_LOSSLESS_PACED,
    MODE_LOSSLESS_CLOSED,
    MODE_MESSAGE_PACED,
    MODE_MESSAGE_CLOSED,
    MODE_ROUND_TRIP,
};

enum CtlType {
    CTL_INFO = 1, /* both: my DHT id, UDP port and Tox address */
    CTL_CONNECTED, /* bob: friend connection is up on my side */
    CTL_START,    /* alice: reset counters for mode (count = N) */
    CTL_READY,    /* bob: counters reset */
    CTL_DONE,     /* bob: all N distinct payloads arrived */
    CTL_END,      /* alice: mode over, stop counting */
    CTL_REPORT,   /* bob: final count and completion time of the mode */
    CTL_QUIT,     /* alice: benchmark finished */
    CTL_RSS,      /* bob: my peak RSS in KiB, then I exit */
};

/* Fixed-size control message; SOCK_SEQPACKET keeps message boundaries. */
typedef struct {
    uint32_t type;
    uint32_t mode;
    uint32_t count;     /* N (START), distinct arrivals (DONE/REPORT) */
    uint32_t ack_every; /* START: bob acknowledges every this many arrivals */
    int64_t value;      /* CLOCK_MONOTONIC ns of completion, or RSS KiB */
    uint16_t udp_port;
    uint8_t dht_id[TOX_PUBLIC_KEY_SIZE];
    uint8_t address[TOX_ADDRESS_SIZE];
} Ctl;

typedef struct {
    uint32_t messages;
    uint32_t payload;
    uint32_t window;
} Config;

typedef struct {
    bool connected;
    uint32_t mode;
    uint32_t acked;         /* highest count bob acknowledged (lossless) */
    uint32_t receipts;      /* read receipts for ids >= receipt_floor */
    uint32_t receipt_floor; /* first message id of the current mode */
    uint32_t echo_seq;      /* sequence number of the last echo */
    bool echo_seen;
} Alice;

typedef struct {
    bool connected;
    uint32_t mode;
    uint32_t total;
    uint32_t count; /* distinct arrivals in the current mode */
    uint32_t ack_every;
    uint32_t last_ack;
    bool ack_pending;
    int64_t done_ns; /* 0 until all `total` arrived */
    uint8_t *seen;   /* one flag per sequence number */
} Bob;

typedef struct {
    double per_second;
    uint32_t lost;
} ModeResult;

static pid_t g_child = 0; /* bob's pid in alice; 0 in bob */
static const char *g_role = "alice";

static void reap_child(bool force)
{
    if (g_child <= 0) {
        return;
    }
    if (force) {
        kill(g_child, SIGKILL);
    }
    /* Bounded wait: bob exits by himself after CTL_RSS, else we kill him. */
    for (int i = 0; i < 500; ++i) {
        if (waitpid(g_child, NULL, WNOHANG) != 0) {
            g_child = 0;
            return;
        }
        if (i == 250) {
            kill(g_child, SIGKILL);
        }
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
    g_child = 0;
}

static void fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tox-harness: %s: ", g_role);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    reap_child(true);
    exit(1);
}

static int64_t now_ns(void)
{
    /* CLOCK_MONOTONIC is system-wide, so bob's timestamps compare with
     * alice's directly. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double seconds_since(int64_t start_ns)
{
    return (double)(now_ns() - start_ns) / 1e9;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

/* ---- control channel ---------------------------------------------------- */

static void ctl_send(int fd, const Ctl *m)
{
    if (send(fd, m, sizeof *m, MSG_NOSIGNAL) != (ssize_t)sizeof *m) {
        fail("control channel send failed: %s", strerror(errno));
    }
}

static void ctl_send_simple(int fd, uint32_t type, uint32_t mode, uint32_t count, int64_t value)
{
    Ctl m = {.type = type, .mode = mode, .count = count, .value = value};
    ctl_send(fd, &m);
}

/* Waits up to timeout_ms (0 = just check). Returns 1 with *out filled, 0 if
 * nothing arrived; the peer going away is fatal. */
static int ctl_recv(int fd, int timeout_ms, Ctl *out)
{
    if (timeout_ms > 0) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, timeout_ms) == 0) {
            return 0;
        }
    }
    ssize_t n = recv(fd, out, sizeof *out, MSG_DONTWAIT);
    if (n == (ssize_t)sizeof *out) {
        return 1;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return 0;
    }
    fail("control channel closed (peer exited?)");
    return 0;
}

/* Spins tox_iterate until a control message of `type` arrives; messages of
 * other types (e.g. a DONE racing an END) are dropped. */
static Ctl ctl_wait_iterating(Tox *tox, void *user, int fd, uint32_t type)
{
    const int64_t start = now_ns();
    Ctl m;
    while (seconds_since(start) < CONTROL_TIMEOUT_S) {
        tox_iterate(tox, user);
        if (ctl_recv(fd, 0, &m) == 1 && m.type == type) {
            return m;
        }
    }
    fail("timed out waiting for control message %" PRIu32, type);
    return m;
}

/* ---- Tox setup ---------------------------------------------------------- */

static Tox *create_tox(void)
{
    Tox_Err_Options_New oerr;
    struct Tox_Options *opts = tox_options_new(&oerr);
    if (opts == NULL) {
        fail("tox_options_new failed (%d)", (int)oerr);
    }
    tox_options_set_ipv6_enabled(opts, false);
    tox_options_set_udp_enabled(opts, true);
    tox_options_set_local_discovery_enabled(opts, false);
    tox_options_set_hole_punching_enabled(opts, false);
    tox_options_set_start_port(opts, 33445);
    tox_options_set_end_port(opts, 33545);
    tox_options_set_tcp_port(opts, 0);

    Tox_Err_New err;
    Tox *tox = tox_new(opts, &err);
    tox_options_free(opts);
    if (tox == NULL) {
        fail("tox_new failed (%d)", (int)err);
    }
    return tox;
}

/* Sends our INFO, receives the peer's and bootstraps to it on loopback. */
static Ctl exchange_info(Tox *tox, int fd)
{
    Ctl mine = {.type = CTL_INFO};
    Tox_Err_Get_Port perr;
    mine.udp_port = tox_self_get_udp_port(tox, &perr);
    if (perr != TOX_ERR_GET_PORT_OK) {
        fail("tox_self_get_udp_port failed (%d)", (int)perr);
    }
    tox_self_get_dht_id(tox, mine.dht_id);
    tox_self_get_address(tox, mine.address);
    ctl_send(fd, &mine);

    Ctl peer;
    if (ctl_recv(fd, (int)(CONTROL_TIMEOUT_S * 1000), &peer) != 1 || peer.type != CTL_INFO) {
        fail("did not receive peer info");
    }
    Tox_Err_Bootstrap berr;
    if (!tox_bootstrap(tox, "127.0.0.1", peer.udp_port, peer.dht_id, &berr)) {
        fail("tox_bootstrap failed (%d)", (int)berr);
    }
    return peer;
}

static bool is_connected(Tox_Connection status)
{
    return status != TOX_CONNECTION_NONE;
}

/* ---- bob ---------------------------------------------------------------- */

static void bob_on_request(Tox *tox, const uint8_t *public_key, const uint8_t *message, size_t length,
                           void *user)
{
    (void)message;
    (void)length;
    (void)user;
    Tox_Err_Friend_Add err;
    tox_friend_add_norequest(tox, public_key, &err);
    if (err != TOX_ERR_FRIEND_ADD_OK) {
        fail("tox_friend_add_norequest failed (%d)", (int)err);
    }
}

static void bob_on_connection(Tox *tox, uint32_t friend_number, Tox_Connection status, void *user)
{
    (void)tox;
    (void)friend_number;
    ((Bob *)user)->connected = is_connected(status);
}

static void bob_count(Bob *b, const uint8_t *data, size_t length)
{
    if (length < HEADER_BYTES || data[1] != b->mode) {
        return;
    }
    const uint32_t seq = get_be32(data + 2);
    if (seq >= b->total || b->seen[seq]) {
        return;
    }
    b->seen[seq] = 1;
    ++b->count;
    if (b->count == b->total) {
        b->done_ns = now_ns();
    }
    if (b->mode == MODE_LOSSLESS_CLOSED && b->count - b->last_ack >= b->ack_every) {
        b->ack_pending = true; /* sent from the main loop, retried on SENDQ */
    }
}

static void bob_on_lossless(Tox *tox, uint32_t friend_number, const uint8_t *data, size_t length, void *user)
{
    (void)tox;
    (void)friend_number;
    if (data[0] == PACKET_ID_DATA) {
        bob_count(user, data, length);
    }
}

static void bob_on_message(Tox *tox, uint32_t friend_number, Tox_Message_Type type, const uint8_t *message,
                           size_t length, void *user)
{
    Bob *b = user;
    bob_count(b, message, length);
    if (b->mode == MODE_ROUND_TRIP && length >= HEADER_BYTES && message[1] == MODE_ROUND_TRIP) {
        Tox_Err_Friend_Send_Message err;
        tox_friend_send_message(tox, friend_number, type, message, length, &err);
        if (err != TOX_ERR_FRIEND_SEND_MESSAGE_OK) {
            fail("echo failed (%d)", (int)err);
        }
    }
}

static void bob_send_ack(Tox *tox, Bob *b)
{
    uint8_t ack[HEADER_BYTES] = {PACKET_ID_ACK, (uint8_t)b->mode};
    put_be32(ack + 2, b->count);
    Tox_Err_Friend_Custom_Packet err;
    if (tox_friend_send_lossless_packet(tox, 0, ack, sizeof ack, &err)) {
        b->last_ack = b->count;
        b->ack_pending = false;
    } else if (err != TOX_ERR_FRIEND_CUSTOM_PACKET_SENDQ) {
        fail("ack send failed (%d)", (int)err);
    }
}

static int run_bob(int fd)
{
    g_role = "bob";
    const int64_t born = now_ns();
    Bob b = {.mode = MODE_NONE};

    Tox *tox = create_tox();
    tox_callback_friend_request(tox, bob_on_request);
    tox_callback_friend_connection_status(tox, bob_on_connection);
    tox_callback_friend_lossless_packet(tox, bob_on_lossless);
    tox_callback_friend_message(tox, bob_on_message);
    exchange_info(tox, fd);

    Ctl m;
    while (!b.connected) {
        if (seconds_since(born) > CONNECT_TIMEOUT_S) {
            fail("no friend connection within %.0f s", CONNECT_TIMEOUT_S);
        }
        tox_iterate(tox, &b);
        /* Sleeping in poll() doubles as noticing alice's exit early. */
        if (ctl_recv(fd, (int)tox_iteration_interval(tox), &m) == 1) {
            fail("unexpected control message %" PRIu32 " while connecting", m.type);
        }
    }
    ctl_send_simple(fd, CTL_CONNECTED, MODE_NONE, 0, 0);

    /* From here on bob never sleeps: iterate, flush acks, poll control. */
    bool done_sent = false;
    for (;;) {
        if (seconds_since(born) > BOB_LIFETIME_S) {
            fail("lifetime of %.0f s exceeded", BOB_LIFETIME_S);
        }
        tox_iterate(tox, &b);
        if (b.ack_pending) {
            bob_send_ack(tox, &b);
        }
        if (b.done_ns != 0 && !done_sent) {
            ctl_send_simple(fd, CTL_DONE, b.mode, b.count, b.done_ns);
            done_sent = true;
        }
        if (ctl_recv(fd, 0, &m) == 0) {
            continue;
        }
        switch (m.type) {
        case CTL_START:
            free(b.seen);
            b.seen = calloc(m.count, 1);
            if (b.seen == NULL) {
                fail("out of memory");
            }
            b.mode = m.mode;
            b.total = m.count;
            b.count = 0;
            b.ack_every = m.ack_every;
            b.last_ack = 0;
            b.ack_pending = false;
            b.done_ns = 0;
            done_sent = false;
            ctl_send_simple(fd, CTL_READY, b.mode, 0, 0);
            break;
        case CTL_END:
            ctl_send_simple(fd, CTL_REPORT, b.mode, b.count, b.done_ns);
            b.mode = MODE_NONE;
            b.ack_pending = false;
            break;
        case CTL_QUIT:
            ctl_send_simple(fd, CTL_RSS, MODE_NONE, 0, peak_rss_kib());
            free(b.seen);
            tox_kill(tox);
            return 0;
        default:
            fail("unexpected control message %" PRIu32, m.type);
        }
    }
}

/* ---- alice -------------------------------------------------------------- */

static void alice_on_connection(Tox *tox, uint32_t friend_number, Tox_Connection status, void *user)
{
    (void)tox;
    (void)friend_number;
    ((Alice *)user)->connected = is_connected(status);
}

static void alice_on_lossless(Tox *tox, uint32_t friend_number, const uint8_t *data, size_t length, void *user)
{
    (void)tox;
    (void)friend_number;
    Alice *a = user;
    if (length >= HEADER_BYTES && data[0] == PACKET_ID_ACK && data[1] == a->mode) {
        const uint32_t count = get_be32(data + 2);
        if (count > a->acked) {
            a->acked = count;
        }
    }
}

static void alice_on_receipt(Tox *tox, uint32_t friend_number, uint32_t message_id, void *user)
{
    (void)tox;
    (void)friend_number;
    Alice *a = user;
    /* Message ids grow by one per send, so receipts for earlier modes are
     * exactly those below the first id of this mode. */
    if (message_id >= a->receipt_floor) {
        ++a->receipts;
    }
}

static void alice_on_message(Tox *tox, uint32_t friend_number, Tox_Message_Type type, const uint8_t *message,
                             size_t length, void *user)
{
    (void)tox;
    (void)friend_number;
    (void)type;
    Alice *a = user;
    if (length >= HEADER_BYTES && message[1] == MODE_ROUND_TRIP) {
        a->echo_seq = get_be32(message + 2);
        a->echo_seen = true;
    }
}

/* Sends one payload; returns false if the send queue is full. */
static bool alice_send(Tox *tox, uint32_t mode, uint8_t *buf, size_t len, uint32_t seq, uint32_t *message_id)
{
    buf[1] = (uint8_t)mode;
    put_be32(buf + 2, seq);
    if (mode == MODE_LOSSLESS_PACED || mode == MODE_LOSSLESS_CLOSED) {
        Tox_Err_Friend_Custom_Packet err;
        if (tox_friend_send_lossless_packet(tox, 0, buf, len, &err)) {
            return true;
        }
        if (err != TOX_ERR_FRIEND_CUSTOM_PACKET_SENDQ) {
            fail("tox_friend_send_lossless_packet failed (%d)", (int)err);
        }
        return false;
    }
    Tox_Err_Friend_Send_Message err;
    *message_id = tox_friend_send_message(tox, 0, TOX_MESSAGE_TYPE_NORMAL, buf, len, &err);
    if (err == TOX_ERR_FRIEND_SEND_MESSAGE_OK) {
        return true;
    }
    if (err != TOX_ERR_FRIEND_SEND_MESSAGE_SENDQ) {
        fail("tox_friend_send_message failed (%d)", (int)err);
    }
    return false;
}

static void start_mode(Tox *tox, Alice *a, int fd, uint32_t mode, uint32_t total, uint32_t ack_every)
{
    a->mode = mode;
    a->acked = 0;
    a->receipts = 0;
    a->receipt_floor = UINT32_MAX;
    Ctl m = {.type = CTL_START, .mode = mode, .count = total, .ack_every = ack_every};
    ctl_send(fd, &m);
    ctl_wait_iterating(tox, a, fd, CTL_READY);
}

/* Ends the mode and returns bob's final report for it. */
static Ctl end_mode(Tox *tox, Alice *a, int fd)
{
    ctl_send_simple(fd, CTL_END, a->mode, 0, 0);
    Ctl report = ctl_wait_iterating(tox, a, fd, CTL_REPORT);
    a->mode = MODE_NONE;
    return report;
}

static void settle(Tox *tox, Alice *a)
{
    const int64_t start = now_ns();
    while (seconds_since(start) < SETTLE_S) {
        tox_iterate(tox, a);
    }
}

static const char *mode_name(uint32_t mode)
{
    switch (mode) {
    case MODE_LOSSLESS_PACED:
        return "lossless paced";
    case MODE_LOSSLESS_CLOSED:
        return "lossless closed loop";
    case MODE_MESSAGE_PACED:
        return "message paced";
    case MODE_MESSAGE_CLOSED:
        return "message closed loop";
    default:
        return "?";
    }
}

static ModeResult run_throughput(Tox *tox, Alice *a, int fd, uint32_t mode, const Config *cfg, uint8_t *buf)
{
    const bool closed = mode == MODE_LOSSLESS_CLOSED || mode == MODE_MESSAGE_CLOSED;
    const bool messages = mode == MODE_MESSAGE_PACED || mode == MODE_MESSAGE_CLOSED;
    /* Bob must acknowledge at least 4 times per window or the loop stalls. */
    uint32_t ack_every = cfg->window / 4;
    if (ack_every > MAX_ACK_INTERVAL) {
        ack_every = MAX_ACK_INTERVAL;
    }
    if (ack_every == 0) {
        ack_every = 1;
    }
    start_mode(tox, a, fd, mode, cfg->messages, ack_every);

    uint32_t sent = 0;
    uint64_t sendq_hits = 0;
    uint64_t iterations = 0;
    bool done = false;
    Ctl m;
    const int64_t t0 = now_ns();
    while (!done && seconds_since(t0) < MODE_TIMEOUT_S) {
        while (sent < cfg->messages) {
            if (closed && sent - (messages ? a->receipts : a->acked) >= cfg->window) {
                break;
            }
            uint32_t id = 0;
            if (!alice_send(tox, mode, buf, cfg->payload, sent, &id)) {
                ++sendq_hits;
                break;
            }
            if (messages && sent == 0) {
                a->receipt_floor = id;
            }
            ++sent;
        }
        tox_iterate(tox, a);
        ++iterations;
        if (ctl_recv(fd, 0, &m) == 1 && m.type == CTL_DONE && m.mode == mode) {
            done = true;
        }
    }
    const double wall = seconds_since(t0);
    const Ctl report = end_mode(tox, a, fd);

    ModeResult r = {.lost = cfg->messages - report.count};
    /* Complete: N over first send -> bob's last distinct arrival.  Timed out:
     * what did arrive over the time spent. */
    const double secs = report.value != 0 ? (double)(report.value - t0) / 1e9 : wall;
    r.per_second = report.count / secs;
    fprintf(stderr,
            "tox-harness: %-20s %8.1f/s  %.3f s  lost %" PRIu32 "  sent %" PRIu32 "  SENDQ %" PRIu64
            "  iterations %" PRIu64 "%s\n",
            mode_name(mode), r.per_second, secs, r.lost, sent, sendq_hits, iterations,
            done ? "" : "  (deadline)");
    settle(tox, a);
    return r;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Nearest-rank percentile (1..100) of a non-empty sorted array. */
static double percentile(const double *sorted, size_t n, unsigned pct)
{
    const size_t rank = (n * pct + 99) / 100; /* ceil(n * pct / 100) */
    return sorted[rank - 1];
}

static void run_round_trips(Tox *tox, Alice *a, int fd, const Config *cfg, uint8_t *buf, double *p50,
                            double *p99)
{
    const uint32_t total = WARMUP_ROUND_TRIPS + TIMED_ROUND_TRIPS;
    double samples[TIMED_ROUND_TRIPS];
    start_mode(tox, a, fd, MODE_ROUND_TRIP, total, 0);

    const int64_t phase_start = now_ns();
    for (uint32_t seq = 0; seq < total; ++seq) {
        a->echo_seen = false;
        uint32_t id = 0;
        const int64_t t0 = now_ns();
        if (!alice_send(tox, MODE_ROUND_TRIP, buf, cfg->payload, seq, &id)) {
            fail("round trip send hit SENDQ");
        }
        while (!(a->echo_seen && a->echo_seq == seq)) {
            if (seconds_since(t0) > ROUND_TRIP_TIMEOUT_S || seconds_since(phase_start) > MODE_TIMEOUT_S) {
                fail("no echo for round trip %" PRIu32, seq);
            }
            tox_iterate(tox, a);
        }
        if (seq >= WARMUP_ROUND_TRIPS) {
            samples[seq - WARMUP_ROUND_TRIPS] = (double)(now_ns() - t0) / 1e6;
        }
    }
    end_mode(tox, a, fd);

    qsort(samples, TIMED_ROUND_TRIPS, sizeof samples[0], cmp_double);
    *p50 = percentile(samples, TIMED_ROUND_TRIPS, 50);
    *p99 = percentile(samples, TIMED_ROUND_TRIPS, 99);
    fprintf(stderr, "tox-harness: round trip p50 %.3f ms  p99 %.3f ms  max %.3f ms\n", *p50, *p99,
            samples[TIMED_ROUND_TRIPS - 1]);
}

static int run_alice(int fd, const Config *cfg)
{
    Alice a = {.receipt_floor = UINT32_MAX};
    const int64_t born = now_ns();

    Tox *tox = create_tox();
    tox_callback_friend_connection_status(tox, alice_on_connection);
    tox_callback_friend_lossless_packet(tox, alice_on_lossless);
    tox_callback_friend_read_receipt(tox, alice_on_receipt);
    tox_callback_friend_message(tox, alice_on_message);
    const Ctl bob = exchange_info(tox, fd);

    static const uint8_t hello[] = "parley tox-harness";
    Tox_Err_Friend_Add ferr;
    tox_friend_add(tox, bob.address, hello, sizeof hello - 1, &ferr);
    if (ferr != TOX_ERR_FRIEND_ADD_OK) {
        fail("tox_friend_add failed (%d)", (int)ferr);
    }

    double connect_s = -1;
    bool bob_connected = false;
    Ctl m;
    while (connect_s < 0 || !bob_connected) {
        if (seconds_since(born) > CONNECT_TIMEOUT_S) {
            fail("no friend connection within %.0f s", CONNECT_TIMEOUT_S);
        }
        tox_iterate(tox, &a);
        if (a.connected && connect_s < 0) {
            connect_s = seconds_since(born);
        }
        if (ctl_recv(fd, (int)tox_iteration_interval(tox), &m) == 1) {
            if (m.type != CTL_CONNECTED) {
                fail("unexpected control message %" PRIu32 " while connecting", m.type);
            }
            bob_connected = true;
        }
    }
    fprintf(stderr, "tox-harness: connected after %.3f s (bob after %.3f s)\n", connect_s,
            seconds_since(born));

    uint8_t *buf = malloc(cfg->payload);
    if (buf == NULL) {
        fail("out of memory");
    }
    memset(buf, 'x', cfg->payload);
    buf[0] = PACKET_ID_DATA;

    const ModeResult lp = run_throughput(tox, &a, fd, MODE_LOSSLESS_PACED, cfg, buf);
    const ModeResult lc = run_throughput(tox, &a, fd, MODE_LOSSLESS_CLOSED, cfg, buf);
    const ModeResult mp = run_throughput(tox, &a, fd, MODE_MESSAGE_PACED, cfg, buf);
    const ModeResult mc = run_throughput(tox, &a, fd, MODE_MESSAGE_CLOSED, cfg, buf);
    double p50, p99;
    run_round_trips(tox, &a, fd, cfg, buf, &p50, &p99);
    free(buf);

    ctl_send_simple(fd, CTL_QUIT, MODE_NONE, 0, 0);
    const Ctl rss = ctl_wait_iterating(tox, &a, fd, CTL_RSS);
    tox_kill(tox);
    reap_child(false);

    printf("{\"version\":\"%" PRIu32 ".%" PRIu32 ".%" PRIu32 "\",\"messages\":%" PRIu32
           ",\"payloadBytes\":%" PRIu32 ",\"connectSeconds\":%.3f"
           ",\"losslessPacedPerSecond\":%.1f,\"losslessPacedLost\":%" PRIu32
           ",\"losslessClosedLoopPerSecond\":%.1f,\"losslessClosedLoopLost\":%" PRIu32
           ",\"messagePacedPerSecond\":%.1f,\"messagePacedLost\":%" PRIu32
           ",\"messageClosedLoopPerSecond\":%.1f,\"messageClosedLoopLost\":%" PRIu32
           ",\"roundTripP50Milliseconds\":%.3f,\"roundTripP99Milliseconds\":%.3f"
           ",\"alicePeakRSSMiB\":%.1f,\"bobPeakRSSMiB\":%.1f}\n",
           tox_version_major(), tox_version_minor(), tox_version_patch(), cfg->messages, cfg->payload,
           connect_s, lp.per_second, lp.lost, lc.per_second, lc.lost, mp.per_second, mp.lost, mc.per_second,
           mc.lost, p50, p99, peak_rss_kib() / 1024.0, rss.value / 1024.0);
    return 0;
}

/* ---- main --------------------------------------------------------------- */

static uint32_t parse_u32(const char *flag, const char *text, uint32_t min, uint32_t max)
{
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || v < min || v > max) {
        fail("%s expects an integer in %" PRIu32 "..%" PRIu32 ", got '%s'", flag, min, max, text);
    }
    return (uint32_t)v;
}

int main(int argc, char **argv)
{
    Config cfg = {.messages = 20000, .payload = 200, .window = 1024};
    /* Messages are capped lower than custom packets (1372 vs 1373). */
    const uint32_t max_payload = TOX_MAX_MESSAGE_LENGTH < TOX_MAX_CUSTOM_PACKET_SIZE
                                     ? TOX_MAX_MESSAGE_LENGTH
                                     : TOX_MAX_CUSTOM_PACKET_SIZE;
    for (int i = 1; i < argc; ++i) {
        if (i + 1 >= argc) {
            fail("usage: %s [--messages N] [--payload BYTES] [--window W]", argv[0]);
        }
        if (strcmp(argv[i], "--messages") == 0) {
            cfg.messages = parse_u32(argv[i], argv[i + 1], 1, UINT32_MAX);
        } else if (strcmp(argv[i], "--payload") == 0) {
            cfg.payload = parse_u32(argv[i], argv[i + 1], HEADER_BYTES, max_payload);
        } else if (strcmp(argv[i], "--window") == 0) {
            cfg.window = parse_u32(argv[i], argv[i + 1], 1, UINT32_MAX);
        } else {
            fail("unknown argument '%s'", argv[i]);
        }
        ++i;
    }

    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) != 0) {
        fail("socketpair failed: %s", strerror(errno));
    }
    fflush(NULL); /* nothing buffered may be written twice after fork */
    const pid_t pid = fork();
    if (pid < 0) {
        fail("fork failed: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        return run_bob(fds[1]);
    }
    g_child = pid;
    close(fds[1]);
    return run_alice(fds[0], &cfg);
}
