# rtbox.os.WakeStamp, x86_64 (System V): long wake(struct block *b).
# One blocking system call, then the CLOCK_MONOTONIC time stamp, with nothing between
# them but the few instructions that set up the clock read: the wake-up path of
# cyclictest (clock_nanosleep, then glibc's clock_gettime) without the JVM's return
# from native code and JNA's result handling before the stamp.
# The block (8-byte slots, WakeStamp.java):
#    0 nr   8 arg1   16 arg2   24 arg3   32 arg4: the system call (arg4 in r10)
#   40 clock: glibc's clock_gettime (which reads the vDSO, as cyclictest's does),
#      or 0 for the clock_gettime system call (228)
#   48 twice: when not 0, a second stamp right after the first (the stamp's own cost)
#   64 stamp   80 second stamp: struct timespec
# Returns the system call's result (a negative errno on failure); the stamp is taken
# whatever it returned. rbx and r12 are callee-saved: pushed and popped; the stack is
# 16-byte aligned at each call (entry rsp = 8 mod 16, three 8-byte steps down).
# Assembled with: as --64; the bytes are in WakeStamp.java (WakeStampTest checks them).
        .intel_syntax noprefix
        .text
wake:   push rbx
        push r12
        sub rsp, 8
        mov rbx, rdi
        mov rax, [rbx]
        mov rdi, [rbx+8]
        mov rsi, [rbx+16]
        mov rdx, [rbx+24]
        mov r10, [rbx+32]
        syscall
        mov r12, rax
        mov edi, 1
        lea rsi, [rbx+64]
        mov rax, [rbx+40]
        test rax, rax
        jz 2f
        call rax
        cmp qword ptr [rbx+48], 0
        je 3f
        mov edi, 1
        lea rsi, [rbx+80]
        call [rbx+40]
        jmp 3f
2:      mov eax, 228
        syscall
        cmp qword ptr [rbx+48], 0
        je 3f
        mov edi, 1
        lea rsi, [rbx+80]
        mov eax, 228
        syscall
3:      mov rax, r12
        add rsp, 8
        pop r12
        pop rbx
        ret
