/*
 * The graph's kernel path in C: a token passed around a ring of N members (processes, or
 * threads of one process) through pipes, one byte a hop, as the graph's driver wakes its
 * first client and each client the next. Run pinned to one CPU, as the graph is.
 *   ring N LAPS [processes|threads] [PERIOD_US]  ->  prints microseconds per hop
 * With PERIOD_US the first member is the graph's driver in C: it sleeps until each period
 * starts (clock_nanosleep, absolute, timer slack 1 ns, as the probe's driver) and times
 * one lap from its wake-up to the token's return, the graph's own cycle time. Without
 * it the laps run back to back. With a period every member sleeps between laps, so each
 * lap starts with fifteen tasks woken cold, which back-to-back laps never see.
 * Why a ring and not only the switcher's ping-pong: with fourteen processes the kernel
 * switches among fifteen address spaces on one CPU, and x86 keeps TLB tags (PCIDs) for
 * only a few per CPU, so each switch can flush what two alternating ones keep.
 */
#include <pthread.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int members, fds[64][2];
static long laps;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *member(void *arg) {
    long i = (long) arg;
    char b;
    for (long l = 0; l < laps; l++) {
        if (read(fds[i][0], &b, 1) != 1 || write(fds[(i + 1) % members][1], &b, 1) != 1)
            break;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: ring N LAPS [processes|threads]\n");
        return 2;
    }
    members = atoi(argv[1]);
    laps = atol(argv[2]);
    int threads = argc > 3 && strcmp(argv[3], "threads") == 0;
    long period_ns = argc > 4 ? atol(argv[4]) * 1000L : 0;
    if (members < 2 || members > 64 || laps < 1) {
        fprintf(stderr, "ring: N must be 2-64 and LAPS at least 1\n");
        return 2;
    }
    for (int i = 0; i < members; i++)
        if (pipe(fds[i]) != 0) {
            perror("pipe");
            return 1;
        }
    pthread_t t[64];
    for (long i = 1; i < members; i++) {
        if (threads)
            pthread_create(&t[i], NULL, member, (void *) i);
        else if (fork() == 0) {
            member((void *) i);
            _exit(0);
        }
    }
    char b = 0;
    double elapsed = 0;
    if (period_ns > 0) {
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        for (long l = 0; l < laps; l++) {
            next.tv_nsec += period_ns;
            while (next.tv_nsec >= 1000000000L) {
                next.tv_nsec -= 1000000000L;
                next.tv_sec++;
            }
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
            double wake = now();
            if (write(fds[1][1], &b, 1) != 1 || read(fds[0][0], &b, 1) != 1) {
                perror("ring");
                return 1;
            }
            elapsed += now() - wake;
        }
    } else {
        double t0 = now();
        for (long l = 0; l < laps; l++) {
            if (write(fds[1][1], &b, 1) != 1 || read(fds[0][0], &b, 1) != 1) {
                perror("ring");
                return 1;
            }
        }
        elapsed = now() - t0;
    }
    printf("%.3f\n", elapsed / laps / members * 1e6);
    if (threads)
        for (int i = 1; i < members; i++)
            pthread_join(t[i], NULL);
    else
        while (wait(NULL) > 0)
            ;
    return 0;
}
