# rtbox.os.PipeLoop, i386 (cdecl): long long loop(struct control *c) at offset 0,
# long long spawn(struct control *c) at the label spawn (PipeLoop.SPAWN_I386).
# The control block as for x86_64 (8-byte slots; the low 4 bytes of nr, fd, buf,
# work and the parent pid are used; limit and done are 64-bit). System calls through
# int 0x80, which every i386 kernel has (sysenter through the vDSO would be faster
# and is not needed). Between its two calls an iteration spins `work` times.
# ebx, esi, edi and ebp are callee-saved in cdecl: pushed and popped. The result is
# returned in edx:eax (cdq sign-extends eax), as JNA's invokeLong reads it.
# spawn: as on x86_64 (fork 2, prctl 172, getppid 64, exit_group 252).
# Assembled with: as --32; the bytes are in PipeLoop.java (PipeLoopTest checks them).
        .intel_syntax noprefix
        .text
loop:   push ebx
        push esi
        push edi
        push ebp
        mov ebp, [esp+20]
1:      mov eax, [ebp+48]
        or eax, [ebp+52]
        jnz 2f
        mov eax, [ebp+56]
        mov edx, [ebp+60]
        sub eax, [ebp+40]
        sbb edx, [ebp+44]
        jnc 2f
        mov eax, [ebp+0]
        mov ebx, [ebp+8]
        mov ecx, [ebp+32]
        mov edx, 1
        int 0x80
        cmp eax, 1
        jne 3f
        mov ecx, [ebp+64]
        jecxz 5f
4:      dec ecx
        jnz 4b
5:      mov eax, [ebp+16]
        mov ebx, [ebp+24]
        mov ecx, [ebp+32]
        mov edx, 1
        int 0x80
        cmp eax, 1
        jne 3f
        add dword ptr [ebp+56], 1
        adc dword ptr [ebp+60], 0
        jmp 1b
2:      mov eax, 1
3:      cdq
        pop ebp
        pop edi
        pop esi
        pop ebx
        ret
        .globl spawn
spawn:  push ebx
        push ebp
        mov ebp, [esp+12]
        mov eax, 2
        int 0x80
        test eax, eax
        jnz 9f
        mov eax, 172
        mov ebx, 1
        mov ecx, 9
        int 0x80
        mov eax, 64
        int 0x80
        cmp eax, [ebp+72]
        jne 8f
        push ebp
        call loop
        add esp, 4
8:      xor ebx, ebx
        mov eax, 252
        int 0x80
9:      cdq
        pop ebp
        pop ebx
        ret
