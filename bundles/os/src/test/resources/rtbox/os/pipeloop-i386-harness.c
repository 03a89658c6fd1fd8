/* PipeLoopTest: runs the i386 pipe loop (work, spawn) under qemu-i386, freestanding: no 32-bit libc needed.
   Exit 0 when every step held; 10-17 name the step that failed. */
typedef unsigned long long u64;
extern long long loop(void *c);
extern long long spawn(void *c);
static int sys(int n, int a, int b, int c) { int r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory"); return r; }
static u64 ctl[11], ctl2[11];
static char byte, buf[8];
static void set(u64 *c, int nr1, int fd1, int nr2, int fd2, u64 limit, u64 work) {
  for (int i = 0; i < 11; i++) c[i] = 0;
  c[0] = nr1; c[1] = fd1; c[2] = nr2; c[3] = fd2; c[4] = (unsigned)(&byte); c[5] = limit; c[8] = work;
}
void _start(void) {
  int a[2], b[2], rc = 0;
  if (sys(42, (int)a, 0, 0) || sys(42, (int)b, 0, 0)) rc = 10;
  set(ctl, 3, a[0], 4, b[1], 3, 100000);
  sys(4, a[1], (int)"xyz", 3);
  long long r = loop(ctl);
  if (!rc && r != 1) rc = 11;
  if (!rc && ctl[7] != 3) rc = 12;
  if (!rc && sys(3, b[0], (int)buf, 8) != 3) rc = 13;
  set(ctl2, 3, a[0], 4, b[1], ~0ULL, 1000);
  ctl2[9] = sys(20, 0, 0, 0); /* getpid: the parent */
  long long pid = spawn(ctl2);
  if (!rc && pid <= 0) rc = 14;
  if (!rc) {
    sys(4, a[1], (int)"q", 1);
    if (sys(3, b[0], (int)buf, 1) != 1) rc = 15;
    if (sys(37, (int)pid, 9, 0) != 0) rc = 16;
    if (sys(7, (int)pid, 0, 0) != (int)pid) rc = 17;
  }
  sys(1, rc, 0, 0);
}
