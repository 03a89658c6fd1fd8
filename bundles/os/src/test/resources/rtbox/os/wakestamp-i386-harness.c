/* WakeStampTest: runs the i386 wake-up sequence under qemu-i386, freestanding (no 32-bit libc needed).
   The clock function stands in for glibc's clock_gettime: a cdecl function that makes the system call.
   Exit 0 when every step held; 10-19 name the step that failed. */
extern long long wake(void *b);
static int sys(int n, int a, int b, int c) { int r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory"); return r; }
int calls;
/* int clock(int id, struct timespec *ts), cdecl as glibc's clock_gettime: it makes the system call,
   then spoils its own argument slots (which cdecl lets a callee do), so a second call that does not
   write them again fails */
__asm__(".globl clock\nclock:\n incl calls\n push %ebx\n mov 8(%esp), %ebx\n mov 12(%esp), %ecx\n"
        " mov $265, %eax\n int $0x80\n movl $-1, 8(%esp)\n movl $0, 12(%esp)\n pop %ebx\n ret\n");
int clock(int id, int *ts);
static unsigned long long b[16];
static int *slot(int at) { return (int *)((char *)b + at); }
static int before(int *x, int *y) { return x[0] < y[0] || (x[0] == y[0] && x[1] <= y[1]); }
static void deadline(int *d, int ns) {
  sys(265, 1, (int)d, 0);
  d[1] += ns;
  if (d[1] >= 1000000000) { d[0]++; d[1] -= 1000000000; }
}
static int sleep_once(int twice) {
  int *d = slot(96), *s = slot(64), *s2 = slot(80), now[2];
  b[0] = 267; b[1] = 1; b[2] = 1; b[3] = (unsigned)d; b[4] = 0; b[6] = twice; b[7] = 0;
  deadline(d, 2000000);
  if (wake(b) != 0) return 11;
  sys(265, 1, (int)now, 0);
  if (!before(d, s) || !before(s, now)) return 12;   /* deadline <= stamp <= now */
  if (twice && (!before(s, s2) || !before(s2, now))) return 13;
  return 0;
}
void _start(void) {
  int rc = 0, p[2];
  b[5] = (unsigned)clock;
  if (!rc) rc = sleep_once(0);
  if (!rc && calls != 1) rc = 14;
  if (!rc) rc = sleep_once(1);
  if (!rc && calls != 3) rc = 15;
  b[5] = 0;                                            /* the raw clock_gettime system call */
  if (!rc) rc = sleep_once(1);
  if (!rc && calls != 3) rc = 16;
  if (!rc && sys(42, (int)p, 0, 0) != 0) rc = 17;      /* a read of one byte from a pipe */
  if (!rc) {
    sys(4, p[1], (int)"\x5a", 1);
    b[0] = 3; b[1] = p[0]; b[2] = (unsigned)&b[14]; b[3] = 1; b[14] = 0;
    if (wake(b) != 1 || b[14] != 0x5a) rc = 18;
    b[1] = -1;
    if (!rc && wake(b) != -9) rc = 19;                 /* EBADF, as a negative errno */
  }
  sys(1, rc, 0, 0);
}
