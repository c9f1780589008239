// A tiny C reactor for wasmsnap's tests: init() builds state in globals
// and on the heap that the snapshot must carry.
#include <stdlib.h>
#include <string.h>

static int init_runs;
static int calls;
static char *greeting;     // malloc'd by init
static long long big = 7;  // changed by init
static double ratio;       // set by init
static int phase_len = -1; // length of WASMSNAP_PHASE as init saw it

__attribute__((export_name("init"))) void init(void) {
    init_runs++;
    greeting = malloc(32);
    strcpy(greeting, "snapshot");
    big = 1LL << 40;
    ratio = 2.5;
    const char *phase = getenv("WASMSNAP_PHASE");
    phase_len = phase ? (int)strlen(phase) : -1;
}

__attribute__((export_name("init_phase"))) int init_phase(void) { return phase_len; }

__attribute__((export_name("init_count"))) int init_count(void) { return init_runs; }

__attribute__((export_name("greeting_len"))) int greeting_len(void) {
    return greeting ? (int)strlen(greeting) : -1;
}

__attribute__((export_name("big_value"))) long long big_value(void) { return big; }

__attribute__((export_name("ratio_x10"))) int ratio_x10(void) { return (int)(ratio * 10); }

__attribute__((export_name("bump"))) int bump(void) { return ++calls; }

// alloc_sum allocates n ints, fills and sums them.
__attribute__((export_name("alloc_sum"))) long long alloc_sum(int n) {
    int *p = malloc(sizeof(int) * (size_t)n);
    if (!p) return -1;
    long long s = 0;
    for (int i = 0; i < n; i++) p[i] = i;
    for (int i = 0; i < n; i++) s += p[i];
    free(p);
    return s;
}
