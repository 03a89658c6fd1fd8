# rtbox.os.PipeLoop, x86_64 (System V): long loop(struct control *c)
# The control block (8-byte slots, little endian; see PipeLoop.java):
#   0 nr1, 8 fd1, 16 nr2, 24 fd2   two system calls per iteration: nr(fd, buf, 1)
#   32 buf   40 limit   48 stop   56 done
# Each iteration: leave if stop != 0 or done >= limit; call nr1 then nr2, each must
# move exactly one byte; then done += 1. Returns 1 when it left on stop or limit,
# otherwise what the failing call returned (0: end of file, -errno).
# syscall clobbers rcx and r11 only; r8 (caller-saved) holds the block.
# Assembled with: as --64; the bytes are in PipeLoop.java (PipeLoopTest checks them).
        .intel_syntax noprefix
        .text
        mov r8, rdi
1:      mov rax, [r8+48]
        test rax, rax
        jnz 2f
        mov rax, [r8+56]
        cmp rax, [r8+40]
        jae 2f
        mov rax, [r8+0]
        mov rdi, [r8+8]
        mov rsi, [r8+32]
        mov edx, 1
        syscall
        cmp rax, 1
        jne 3f
        mov rax, [r8+16]
        mov rdi, [r8+24]
        mov rsi, [r8+32]
        mov edx, 1
        syscall
        cmp rax, 1
        jne 3f
        inc qword ptr [r8+56]
        jmp 1b
2:      mov eax, 1
3:      ret
