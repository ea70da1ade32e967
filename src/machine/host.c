/* SPDX-License-Identifier: BSD-3-Clause */
/* host.c - this host's processors, caches and memory, read in one place
 * (host.h): the /proc and /sys parsers and the one reader. */
#define _POSIX_C_SOURCE 200809L
#include "host.h"

#include "fileio.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ parsers */

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Blanks from buf[i]; 0 when they end the text (or a NUL does). */
static int rest_blank(const char *buf, size_t len, size_t i)
{
    while (i < len && is_blank(buf[i]))
        i++;
    return i != len && buf[i] != '\0';
}

int hpm_host_parse_u64(const char *buf, size_t len, uint64_t *out)
{
    size_t i = 0;
    uint64_t v;
    while (i < len && is_blank(buf[i]))
        i++;
    if (hpm_text_digits(buf, len, &i, &v) != 0 || rest_blank(buf, len, i))
        return -1;
    *out = v;
    return 0;
}

int hpm_host_parse_size(const char *buf, size_t len, uint64_t *out)
{
    size_t i = 0;
    uint64_t v, mul = 1;
    while (i < len && is_blank(buf[i]))
        i++;
    if (hpm_text_digits(buf, len, &i, &v) != 0)
        return -1;
    if (i < len) {
        switch (buf[i]) { /* sysfs writes K; M and G for completeness */
        case 'k': case 'K': mul = 1024; i++; break;
        case 'm': case 'M': mul = 1024 * 1024; i++; break;
        case 'g': case 'G': mul = 1024ull * 1024 * 1024; i++; break;
        default: break;
        }
    }
    if (rest_blank(buf, len, i) || v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

int hpm_host_parse_cpulist(const char *buf, size_t len)
{
    size_t i = 0;
    uint64_t total = 0;
    while (i < len && is_blank(buf[i]))
        i++;
    if (i == len || buf[i] == '\0')
        return 0;
    for (;;) {
        uint64_t a, b;
        if (hpm_text_digits(buf, len, &i, &a) != 0)
            return -1;
        b = a;
        if (i < len && buf[i] == '-') {
            i++;
            if (hpm_text_digits(buf, len, &i, &b) != 0 || b < a)
                return -1;
        }
        if (b - a >= 1u << 20)
            return -1;
        total += b - a + 1;
        if (total > 1u << 20)
            return -1;
        if (i < len && buf[i] == ',') {
            i++;
            continue;
        }
        return rest_blank(buf, len, i) ? -1 : (int)total;
    }
}

/* The value after "key<blanks>:" on a cpuinfo line, or NULL: the key is
 * the whole name ("model" is not "model name"). */
static const char *cpuinfo_value(const char *line, size_t n, const char *key, size_t *vlen)
{
    size_t klen = strlen(key), j;
    if (n < klen || memcmp(line, key, klen) != 0)
        return NULL;
    j = klen;
    while (j < n && (line[j] == ' ' || line[j] == '\t'))
        j++;
    if (j >= n || line[j] != ':')
        return NULL;
    j++;
    while (j < n && (line[j] == ' ' || line[j] == '\t'))
        j++;
    *vlen = n - j;
    while (*vlen > 0 && is_blank(line[j + *vlen - 1]))
        (*vlen)--;
    return line + j;
}

static void copy_value(char *dst, size_t cap, const char *v, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

static int small_int(const char *v, size_t n)
{
    uint64_t x;
    if (hpm_host_parse_u64(v, n, &x) != 0 || x > 1000000)
        return 0;
    return (int)x;
}

/* "2095.076": integer and fraction without strtod (locale) */
static double decimal(const char *v, size_t vlen)
{
    size_t j = 0;
    uint64_t ip = 0, fp = 0;
    double scale = 1, x;
    if (hpm_text_digits(v, vlen, &j, &ip) != 0)
        return 0;
    x = (double)ip;
    if (j < vlen && v[j] == '.') {
        j++;
        while (j < vlen && is_digit(v[j]) && scale < 1e12) {
            fp = fp * 10 + (uint64_t)(v[j] - '0');
            scale *= 10;
            j++;
        }
        x += (double)fp / scale;
    }
    return x;
}

/* The first processor's keys: a name and where its value goes. */
static int first_cpu_line(struct hpm_cpuinfo *ci, const char *line, size_t n)
{
    size_t vlen;
    const char *v;
    if ((v = cpuinfo_value(line, n, "model name", &vlen)) ||
        (v = cpuinfo_value(line, n, "cpu model", &vlen)))
        copy_value(ci->model, sizeof ci->model, v, vlen);
    else if ((v = cpuinfo_value(line, n, "Model", &vlen)) && !ci->model[0])
        copy_value(ci->model, sizeof ci->model, v, vlen);
    else if ((v = cpuinfo_value(line, n, "vendor_id", &vlen)) ||
             (v = cpuinfo_value(line, n, "CPU implementer", &vlen)))
        copy_value(ci->vendor, sizeof ci->vendor, v, vlen);
    else if ((v = cpuinfo_value(line, n, "cpu MHz", &vlen)))
        ci->mhz = decimal(v, vlen);
    else if ((v = cpuinfo_value(line, n, "siblings", &vlen)))
        ci->siblings = small_int(v, vlen);
    else if ((v = cpuinfo_value(line, n, "cpu cores", &vlen)))
        ci->cores = small_int(v, vlen);
    else if ((v = cpuinfo_value(line, n, "cpu family", &vlen)))
        ci->family = small_int(v, vlen);
    else if ((v = cpuinfo_value(line, n, "model", &vlen)))
        ci->model_number = small_int(v, vlen);
    else if ((v = cpuinfo_value(line, n, "stepping", &vlen)))
        ci->stepping = small_int(v, vlen);
    else
        return 0;
    return 1;
}

void hpm_host_parse_cpuinfo(const char *buf, size_t len, struct hpm_cpuinfo *ci)
{
    /* distinct physical ids: a small bitmap is enough for real machines */
    uint64_t seen[4] = {0, 0, 0, 0};
    size_t i = 0;
    int first_done = 0, s;
    memset(ci, 0, sizeof *ci);
    while (i < len) {
        size_t eol = i, vlen;
        const char *line = buf + i, *v;
        while (eol < len && buf[eol] != '\n')
            eol++;
        if ((v = cpuinfo_value(line, eol - i, "processor", &vlen))) {
            if (ci->processors > 0)
                first_done = 1;
            ci->processors++;
        } else if ((v = cpuinfo_value(line, eol - i, "physical id", &vlen))) {
            int id = small_int(v, vlen);
            if (id >= 0 && id < 256)
                seen[id / 64] |= 1ull << (id % 64);
        } else if (!first_done)
            (void)first_cpu_line(ci, line, eol - i);
        i = eol + 1;
    }
    for (s = 0; s < 256; s++)
        if (seen[s / 64] & (1ull << (s % 64)))
            ci->sockets++;
}

/* ------------------------------------------------------------ the reader */

/* A small /proc or /sys file into buf (NUL-terminated; these files have
 * no size to ask for first): its length, or -1 when it cannot be read. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t r;
    size_t n = 0;
    if (fd < 0)
        return -1;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

/* root/rel into buf: its length (> 0), or 0 when missing or empty. */
static size_t read_rel(const char *root, const char *rel, char *buf, size_t cap)
{
    char path[512];
    ssize_t n;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", root, rel) >= sizeof path)
        return 0;
    n = read_small(path, buf, cap);
    return n > 0 ? (size_t)n : 0;
}

static int rel_u64(const char *root, const char *rel, uint64_t *v)
{
    char buf[64];
    size_t n = read_rel(root, rel, buf, sizeof buf);
    return n > 0 && hpm_host_parse_u64(buf, n, v) == 0;
}

static void read_cache(const char *root, unsigned i, struct hpm_host_cache *c)
{
    char rel[96], buf[256];
    size_t n;
    int cpus;
    c->index = i;
    snprintf(rel, sizeof rel, "cpu0/cache/index%u/size", i);
    if ((n = read_rel(root, rel, buf, sizeof buf)) > 0 && hpm_host_parse_size(buf, n, &c->size) == 0)
        c->has |= HPM_HOST_CACHE_SIZE;
    snprintf(rel, sizeof rel, "cpu0/cache/index%u/ways_of_associativity", i);
    if (rel_u64(root, rel, &c->ways))
        c->has |= HPM_HOST_CACHE_WAYS;
    snprintf(rel, sizeof rel, "cpu0/cache/index%u/coherency_line_size", i);
    if (rel_u64(root, rel, &c->line))
        c->has |= HPM_HOST_CACHE_LINE;
    snprintf(rel, sizeof rel, "cpu0/cache/index%u/type", i);
    n = read_rel(root, rel, buf, sizeof buf);
    c->type = n > 0 && buf[0] == 'D' ? 'D' : n > 0 && buf[0] == 'I' ? 'I' : 'U';
    snprintf(rel, sizeof rel, "cpu0/cache/index%u/shared_cpu_list", i);
    if ((n = read_rel(root, rel, buf, sizeof buf)) > 0 &&
        (cpus = hpm_host_parse_cpulist(buf, n)) >= 0) {
        c->shared_cpus = cpus;
        c->has |= HPM_HOST_CACHE_SHARED;
    }
}

int hpm_host_read(struct hpm_host *h, const char *cpu_root)
{
    const char *root = cpu_root ? cpu_root : "/sys/devices/system/cpu";
    size_t cap = 1 << 22; /* cpuinfo of a few hundred CPUs */
    char *buf, line[256];
    ssize_t n;
    size_t len;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t khz;
    unsigned i;
    int cpus;

    memset(h, 0, sizeof *h);
    if ((len = read_rel(root, "online", line, sizeof line)) > 0 &&
        (cpus = hpm_host_parse_cpulist(line, len)) > 0)
        h->cpus = (uint32_t)cpus;
    else {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        h->cpus = c > 0 ? (uint32_t)c : 0;
    }

    buf = malloc(cap);
    n = buf ? read_small("/proc/cpuinfo", buf, cap) : -1;
    hpm_host_parse_cpuinfo(n > 0 ? buf : "", n > 0 ? (size_t)n : 0, &h->cpu);
    free(buf);
    h->mhz = h->cpu.mhz;
    if (h->mhz <= 0 && rel_u64(root, "cpu0/cpufreq/cpuinfo_max_freq", &khz))
        h->mhz = (double)khz / 1000.0;

    h->memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    h->page_size = page > 0 ? (uint64_t)page : 4096;

    for (i = 0; i < HPM_HOST_MAX_CACHES; i++) {
        char rel[64];
        struct hpm_host_cache *c = &h->caches[h->n_caches];
        snprintf(rel, sizeof rel, "cpu0/cache/index%u/level", i);
        if (!rel_u64(root, rel, &c->level))
            continue;
        read_cache(root, i, c);
        h->n_caches++;
    }
    return 0;
}

static struct hpm_host the_host;
static pthread_once_t the_host_once = PTHREAD_ONCE_INIT;

static void read_the_host(void) { hpm_host_read(&the_host, NULL); }

const struct hpm_host *hpm_host(void)
{
    pthread_once(&the_host_once, read_the_host);
    return &the_host;
}
