/*
 * delayline: a wire with a fixed one-way delay between two TAP devices.
 *
 * Opens (creating them) two TAP devices, A and B (IFF_TAP | IFF_NO_PI), each optionally inside a
 * network namespace given by its path (/var/run/netns/NAME): the device is created in that namespace
 * and this process returns to its own, so nothing appears in the namespace it was started in. Every
 * Ethernet frame read from one device is held until its arrival time + the one-way delay
 * (CLOCK_MONOTONIC, ns) and then written to the other device, first in first out per direction.
 * Each direction holds at most --queue-bytes bytes of frames; a frame that does not fit is dropped and
 * counted, as a wire whose buffer is full would. One thread: ppoll on both devices with the time to
 * the next due frame as timeout (less the wake-up's measured lateness, see main), timer slack 1 ns.
 *
 * The pid file is written once both devices are open (a script waits for it before configuring them)
 * and removed on exit. SIGTERM or SIGINT: prints the counters to stderr and exits 0.
 *
 * With --fifo-priority N (1..99) it runs under SCHED_FIFO at that priority, so that a busy machine
 * does not add its scheduling delays to the wire's (it needs little CPU: a read, a copy and a write per
 * frame); 0, the default, keeps the normal scheduler.
 *
 * Build: gcc -O2 -Wall -Wextra -o delayline delayline.c
 * Usage: delayline --tap-a NAME [--netns-a PATH] --tap-b NAME [--netns-b PATH] --delay-us N
 *                  [--queue-bytes N] [--pid-file PATH] [--fifo-priority N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAME 65536u          /* larger than any frame a TAP without offloads hands out */
#define READS_PER_WAKEUP 64       /* frames read from one device before looking at the other */
#define DEFAULT_QUEUE_BYTES (32u << 20)
#define MAX_EARLY_NS 500000u      /* never send a frame more than 0.5 ms before it is due */

/* A frame in a queue: its header, then its bytes, padded to 8. */
struct frame_header {
    uint64_t due_ns;
    uint32_t length;  /* 0: a wrap marker, the next frame starts at offset 0 */
    uint32_t pad;
};

#define HEADER_SIZE ((uint32_t) sizeof(struct frame_header))

static uint32_t padded(uint32_t n) { return (n + 7u) & ~7u; }

/* One direction: a byte ring of frames, FIFO, with counters. */
struct direction {
    const char *name;      /* "a->b" or "b->a" */
    int in_fd;
    int out_fd;
    unsigned char *ring;
    uint64_t capacity;     /* bytes of the ring */
    uint64_t head;         /* offset of the oldest frame */
    uint64_t tail;         /* offset where the next frame goes */
    uint64_t used;         /* bytes in use, headers, padding and skipped ends included */
    uint64_t queued_bytes; /* frame bytes held (what --queue-bytes limits) */
    uint64_t queue_limit;
    uint64_t frames_forwarded, bytes_forwarded;
    uint64_t frames_dropped, bytes_dropped;
    uint64_t write_errors;
    uint64_t max_queued_bytes;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig) { (void) sig; stop_requested = 1; }

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "delayline: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int open_tap(const char *name, const char *netns_path) {
    int home = -1;
    if (netns_path != NULL) {
        home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        if (home < 0) die("open /proc/self/ns/net");
        int target = open(netns_path, O_RDONLY | O_CLOEXEC);
        if (target < 0) {
            fprintf(stderr, "delayline: open %s: %s\n", netns_path, strerror(errno));
            exit(1);
        }
        if (setns(target, CLONE_NEWNET) < 0) die("setns into the TAP's namespace");
        close(target);
    }
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) die("open /dev/net/tun");
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    if (strlen(name) >= IFNAMSIZ) {
        fprintf(stderr, "delayline: device name too long: %s\n", name);
        exit(1);
    }
    strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        fprintf(stderr, "delayline: TUNSETIFF %s: %s\n", name, strerror(errno));
        exit(1);
    }
    if (home >= 0) {
        if (setns(home, CLONE_NEWNET) < 0) die("setns back home");
        close(home);
    }
    return fd;
}

static void direction_init(struct direction *d, const char *name, int in_fd, int out_fd, uint64_t queue_limit) {
    memset(d, 0, sizeof *d);
    d->name = name;
    d->in_fd = in_fd;
    d->out_fd = out_fd;
    d->queue_limit = queue_limit;
    /* Room for queue_limit bytes of the smallest frames (headers and padding) and one skipped end. */
    d->capacity = queue_limit * 2 + 4 * (uint64_t) MAX_FRAME;
    d->ring = malloc(d->capacity);
    if (d->ring == NULL) die("malloc");
}

static struct frame_header *header_at(struct direction *d, uint64_t offset) {
    return (struct frame_header *) (d->ring + offset);
}

/*
 * Where a frame of `need` bytes (header included) can go, or UINT64_MAX if the ring is full. May place
 * a wrap marker at the tail and account the skipped end as used.
 */
static uint64_t reserve(struct direction *d, uint64_t need) {
    if (d->capacity - d->used < need) return UINT64_MAX;
    if (d->used == 0) {
        d->head = d->tail = 0;
    }
    if (d->tail >= d->head && d->used > 0) {
        /* Free space: [tail, capacity) and [0, head). */
        if (d->capacity - d->tail >= need) return d->tail;
        if (d->head >= need) {
            uint64_t skipped = d->capacity - d->tail;
            if (skipped >= HEADER_SIZE) header_at(d, d->tail)->length = 0;
            d->used += skipped;
            d->tail = 0;
            return 0;
        }
        return UINT64_MAX;
    }
    if (d->used == 0) return d->capacity >= need ? 0 : UINT64_MAX;
    /* tail < head: free space is [tail, head). */
    return d->head - d->tail >= need ? d->tail : UINT64_MAX;
}

/* Reads up to READS_PER_WAKEUP frames from d->in_fd and queues them. */
static void read_frames(struct direction *d, uint64_t delay_ns, unsigned char *scratch) {
    for (int i = 0; i < READS_PER_WAKEUP; i++) {
        ssize_t n = read(d->in_fd, scratch, MAX_FRAME);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) return;
            if (errno == EIO) return; /* device down: nothing to read */
            die("read");
        }
        if (n == 0) return;
        uint64_t arrival = now_ns();
        uint32_t length = (uint32_t) n;
        uint64_t need = HEADER_SIZE + padded(length);
        uint64_t at = UINT64_MAX;
        if (d->queued_bytes + length <= d->queue_limit) at = reserve(d, need);
        if (at == UINT64_MAX) {
            d->frames_dropped++;
            d->bytes_dropped += length;
            continue;
        }
        struct frame_header *h = header_at(d, at);
        h->due_ns = arrival + delay_ns;
        h->length = length;
        h->pad = 0;
        memcpy(d->ring + at + HEADER_SIZE, scratch, length);
        d->tail = at + need;
        if (d->tail == d->capacity) d->tail = 0;
        d->used += need;
        d->queued_bytes += length;
        if (d->queued_bytes > d->max_queued_bytes) d->max_queued_bytes = d->queued_bytes;
    }
}

/* The oldest frame, skipping a wrap marker, or NULL if none. */
static struct frame_header *oldest(struct direction *d) {
    if (d->used == 0) return NULL;
    uint64_t rest = d->capacity - d->head;
    if (rest < HEADER_SIZE || header_at(d, d->head)->length == 0) {
        d->used -= rest;
        d->head = 0;
        if (d->used == 0) return NULL;
    }
    return header_at(d, d->head);
}

/*
 * Writes every frame due by `now` to d->out_fd. Returns 1 if the device would block (wait for POLLOUT),
 * 0 otherwise.
 */
static int write_due(struct direction *d, uint64_t now) {
    struct frame_header *h;
    while ((h = oldest(d)) != NULL && h->due_ns <= now) {
        ssize_t n = write(d->out_fd, (unsigned char *) h + HEADER_SIZE, h->length);
        if (n < 0) {
            if (errno == EAGAIN) return 1;
            if (errno == EINTR) continue;
            d->write_errors++; /* for example the device is down: the frame is lost, as on a wire */
        } else {
            d->frames_forwarded++;
            d->bytes_forwarded += h->length;
        }
        uint64_t need = HEADER_SIZE + padded(h->length);
        d->queued_bytes -= h->length;
        d->used -= need;
        d->head += need;
        if (d->head == d->capacity) d->head = 0;
    }
    return 0;
}

/* The median lateness of 15 timed 200 us waits: where the moving average in main starts. */
static uint64_t initial_lateness_ns(const sigset_t *mask) {
    uint64_t late[15];
    for (int i = 0; i < 15; i++) {
        struct timespec wait = {0, 200000};
        uint64_t target = now_ns() + 200000;
        ppoll(NULL, 0, &wait, mask);
        uint64_t woke = now_ns();
        late[i] = woke > target ? woke - target : 0;
        if (late[i] > MAX_EARLY_NS) late[i] = MAX_EARLY_NS;
    }
    for (int i = 1; i < 15; i++) {
        for (int j = i; j > 0 && late[j - 1] > late[j]; j--) {
            uint64_t t = late[j]; late[j] = late[j - 1]; late[j - 1] = t;
        }
    }
    return late[7];
}

static void print_counters(const struct direction *d) {
    fprintf(stderr,
            "delayline %s: forwarded %llu frames %llu bytes, dropped (queue full) %llu frames %llu bytes, "
            "write errors %llu, max queued %llu bytes\n",
            d->name, (unsigned long long) d->frames_forwarded, (unsigned long long) d->bytes_forwarded,
            (unsigned long long) d->frames_dropped, (unsigned long long) d->bytes_dropped,
            (unsigned long long) d->write_errors, (unsigned long long) d->max_queued_bytes);
}

static void usage(void) {
    fprintf(stderr,
            "usage: delayline --tap-a NAME [--netns-a PATH] --tap-b NAME [--netns-b PATH] --delay-us N\n"
            "                 [--queue-bytes N] [--pid-file PATH] [--fifo-priority N]\n");
    exit(2);
}

static uint64_t parse_u64(const char *s, const char *option) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *s == '\0' || *end != '\0' || s[0] == '-') {
        fprintf(stderr, "delayline: %s: not a non-negative integer: %s\n", option, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv) {
    const char *tap_a = NULL, *tap_b = NULL, *netns_a = NULL, *netns_b = NULL, *pid_file = NULL;
    uint64_t delay_us = UINT64_MAX, queue_bytes = DEFAULT_QUEUE_BYTES, fifo_priority = 0;
    static const struct option options[] = {
        {"tap-a", required_argument, NULL, 'a'},    {"tap-b", required_argument, NULL, 'b'},
        {"netns-a", required_argument, NULL, 'A'},  {"netns-b", required_argument, NULL, 'B'},
        {"delay-us", required_argument, NULL, 'd'}, {"queue-bytes", required_argument, NULL, 'q'},
        {"pid-file", required_argument, NULL, 'p'}, {"fifo-priority", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'a': tap_a = optarg; break;
        case 'b': tap_b = optarg; break;
        case 'A': netns_a = optarg; break;
        case 'B': netns_b = optarg; break;
        case 'd': delay_us = parse_u64(optarg, "--delay-us"); break;
        case 'q': queue_bytes = parse_u64(optarg, "--queue-bytes"); break;
        case 'p': pid_file = optarg; break;
        case 'f': fifo_priority = parse_u64(optarg, "--fifo-priority"); break;
        default: usage();
        }
    }
    if (optind != argc || tap_a == NULL || tap_b == NULL || delay_us == UINT64_MAX) usage();
    if (delay_us > 10ull * 1000 * 1000) {
        fprintf(stderr, "delayline: --delay-us %llu: above 10 s\n", (unsigned long long) delay_us);
        exit(2);
    }
    if (queue_bytes < MAX_FRAME || queue_bytes > (1ull << 32)) {
        fprintf(stderr, "delayline: --queue-bytes %llu: not in [%u, 2^32]\n", (unsigned long long) queue_bytes, MAX_FRAME);
        exit(2);
    }
    if (fifo_priority > 99) {
        fprintf(stderr, "delayline: --fifo-priority %llu: not in 0..99\n", (unsigned long long) fifo_priority);
        exit(2);
    }
    uint64_t delay_ns = delay_us * 1000;
    if (fifo_priority > 0) {
        struct sched_param param = {.sched_priority = (int) fifo_priority};
        if (sched_setscheduler(0, SCHED_FIFO, &param) < 0) die("sched_setscheduler SCHED_FIFO");
    }

    /* SIGTERM and SIGINT are blocked except inside ppoll, so a stop is never missed between checks. */
    sigset_t blocked, during_poll;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    if (sigprocmask(SIG_BLOCK, &blocked, &during_poll) < 0) die("sigprocmask");
    sigdelset(&during_poll, SIGTERM);
    sigdelset(&during_poll, SIGINT);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0) die("sigaction");
    signal(SIGPIPE, SIG_IGN);
    /* Wake-ups at the due time, not up to 50 us later (the default slack). */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

    int fd_a = open_tap(tap_a, netns_a);
    int fd_b = open_tap(tap_b, netns_b);

    struct direction ab, ba;
    direction_init(&ab, "a->b", fd_a, fd_b, queue_bytes);
    direction_init(&ba, "b->a", fd_b, fd_a, queue_bytes);
    unsigned char *scratch = malloc(MAX_FRAME);
    if (scratch == NULL) die("malloc");

    if (pid_file != NULL) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", pid_file);
        FILE *f = fopen(tmp, "w");
        if (f == NULL || fprintf(f, "%ld\n", (long) getpid()) < 0 || fclose(f) != 0 || rename(tmp, pid_file) != 0) {
            die("writing the pid file");
        }
    }
    fprintf(stderr, "delayline: %s <-> %s, %llu us each way, queue %llu bytes per direction\n", tap_a, tap_b,
            (unsigned long long) delay_us, (unsigned long long) queue_bytes);

    /*
     * The kernel wakes a timed ppoll some tens of microseconds after the timeout (more in a virtual
     * machine), and every path crosses several delay lines. So the wait ends `early_ns` before the next
     * due time, early_ns being a moving average (gain 1/8) of how late the wake-ups after a timeout were,
     * and frames due within early_ns of now go out now: on average a frame leaves at its due time, give
     * or take the wake-up's jitter, and no time is spent spinning.
     */
    uint64_t early_ns = initial_lateness_ns(&during_poll);
    int blocked_ab = 0, blocked_ba = 0, exit_code = 0;
    while (!stop_requested) {
        uint64_t now = now_ns();
        blocked_ab = write_due(&ab, now + early_ns);
        blocked_ba = write_due(&ba, now + early_ns);

        struct pollfd fds[2];
        fds[0].fd = fd_a;
        fds[0].events = POLLIN | (blocked_ba ? POLLOUT : 0);
        fds[1].fd = fd_b;
        fds[1].events = POLLIN | (blocked_ab ? POLLOUT : 0);
        fds[0].revents = fds[1].revents = 0;

        struct timespec timeout, *timeout_p = NULL;
        uint64_t next_due = UINT64_MAX;
        struct frame_header *h;
        if (!blocked_ab && (h = oldest(&ab)) != NULL) next_due = h->due_ns;
        if (!blocked_ba && (h = oldest(&ba)) != NULL && h->due_ns < next_due) next_due = h->due_ns;
        uint64_t wake_target = 0;
        if (next_due != UINT64_MAX) {
            now = now_ns();
            wake_target = next_due > early_ns ? next_due - early_ns : 0;
            uint64_t wait = wake_target > now ? wake_target - now : 0;
            timeout.tv_sec = (time_t) (wait / 1000000000ull);
            timeout.tv_nsec = (long) (wait % 1000000000ull);
            timeout_p = &timeout;
        }
        int ready = ppoll(fds, 2, timeout_p, &during_poll);
        if (ready < 0) {
            if (errno == EINTR) continue;
            die("ppoll");
        }
        if (ready == 0 && timeout_p != NULL && (timeout.tv_sec != 0 || timeout.tv_nsec != 0)) {
            uint64_t woke = now_ns();
            int64_t late = woke > wake_target ? (int64_t) (woke - wake_target) : 0;
            if (late > (int64_t) MAX_EARLY_NS) late = (int64_t) MAX_EARLY_NS;
            early_ns = (uint64_t) ((int64_t) early_ns + (late - (int64_t) early_ns) / 8);
        }
        if ((fds[0].revents | fds[1].revents) & (POLLERR | POLLNVAL)) {
            /* The device went away, for example with its namespace. */
            fprintf(stderr, "delayline: device %s failed\n", (fds[0].revents & (POLLERR | POLLNVAL)) ? tap_a : tap_b);
            exit_code = 1;
            break;
        }
        if (fds[0].revents & POLLIN) read_frames(&ab, delay_ns, scratch);
        if (fds[1].revents & POLLIN) read_frames(&ba, delay_ns, scratch);
    }

    fprintf(stderr, "delayline: wake-ups ended %llu ns before the due time at the end (their mean lateness)\n",
            (unsigned long long) early_ns);
    print_counters(&ab);
    print_counters(&ba);
    if (pid_file != NULL) unlink(pid_file);
    return exit_code;
}
