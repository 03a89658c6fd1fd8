# rtbox.os.PipeLoop, x86_64 (System V): long loop(struct control *c) at offset 0,
# long spawn(struct control *c) at the label spawn (PipeLoop.SPAWN_X86_64).
# The control block (8-byte slots, little endian; see PipeLoop.java):
#   0 nr1, 8 fd1, 16 nr2, 24 fd2   two system calls per iteration: nr(fd, buf, 1)
#   32 buf   40 limit   48 stop   56 done   64 work   72 parent pid
# Each iteration: leave if stop != 0 or done >= limit; call nr1, spin `work` times
# (a graph client's calibrated work; 0 for the pipe switcher), call nr2, each call
# must move exactly one byte; then done += 1. Returns 1 when it left on stop or
# limit, otherwise what the failing call returned (0: end of file, -errno).
# syscall clobbers rcx and r11 only; r8 (caller-saved) holds the block.
# spawn: fork(); the parent gets the child's pid (or -errno); the child asks for
# SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG), leaves at once if the parent
# (pid at 72) is already gone, runs the loop and calls exit_group(0). The child runs
# only these instructions and system calls, never the JVM's code, which is why a fork
# of the JVM is safe here.
# Assembled with: as --64; the bytes are in PipeLoop.java (PipeLoopTest checks them).
        .intel_syntax noprefix
        .text
loop:   mov r8, rdi
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
        mov rcx, [r8+64]
        jrcxz 5f
4:      dec rcx
        jnz 4b
5:      mov rax, [r8+16]
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
        .globl spawn
spawn:  push rbx
        mov rbx, rdi
        mov eax, 57
        syscall
        test rax, rax
        jnz 9f
        mov eax, 157
        mov edi, 1
        mov esi, 9
        syscall
        mov eax, 110
        syscall
        cmp rax, [rbx+72]
        jne 8f
        mov rdi, rbx
        call loop
8:      xor edi, edi
        mov eax, 231
        syscall
9:      pop rbx
        ret
