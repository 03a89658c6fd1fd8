/*
 * Seed 001's context switcher (a writer and a forked reader passing one byte per
 * message through a pipe), with the message count as an argument and the time measured
 * inside: from the fork to the reader's exit, as rtbox's processes mode is timed from its
 * first write until the pipe is drained. Prints "messages seconds".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    long count = argc > 1 ? atol(argv[1]) : 1024 * 1024;
    char buffer = 0;
    int fd[2];
    if (pipe(fd) != 0) {
        perror("pipe");
        return 1;
    }
    double t0 = now();
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child) {
        for (long i = 0; i < count; i++)
            if (write(fd[1], &buffer, 1) != 1) {
                perror("write");
                return 1;
            }
        waitpid(child, NULL, 0);
        printf("%ld %.6f\n", count, now() - t0);
    } else {
        for (long i = 0; i < count; i++)
            if (read(fd[0], &buffer, 1) != 1)
                _exit(1);
        _exit(0);
    }
    return 0;
}
