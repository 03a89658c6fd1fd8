# rtbox.os.WakeStamp, i386 (cdecl): long long wake(struct block *b). The x86_64
# sequence's twin (see wakestamp-x86_64.s), in i386 instructions only (the board is a
# Pentium III: no SSE2, nothing newer than the i386's integer set is used here).
# The block as for x86_64 (8-byte slots, the low 4 bytes used), and:
#   56 entry: the vDSO's __kernel_vsyscall (AT_SYSINFO: sysenter on a Pentium III,
#      as glibc enters the kernel), or 0 for int 0x80
#   a timespec is 4 + 4 bytes (Debian i386's 32-bit time_t: clock_nanosleep 267 and
#      clock_gettime 265 take that layout, as does glibc's clock_gettime)
# The raw clock read (clock 0) uses int 0x80. ebx, esi, edi and ebp are callee-saved:
# pushed and popped; the system call's result is kept in edi across the clock read and
# returned in edx:eax (cdq), as JNA's invokeLong reads it. The callee owns its argument
# slots in cdecl, so both are written again before the second call. Entry esp = 12 mod
# 16; after four pushes, 4 bytes and two arguments, esp is 16-byte aligned at each call.
# Assembled with: as --32; the bytes are in WakeStamp.java (WakeStampTest checks them).
        .intel_syntax noprefix
        .text
wake:   push ebx
        push esi
        push edi
        push ebp
        mov ebp, [esp+20]
        mov eax, [ebp+0]
        mov ebx, [ebp+8]
        mov ecx, [ebp+16]
        mov edx, [ebp+24]
        mov esi, [ebp+32]
        mov edi, [ebp+56]
        test edi, edi
        jz 1f
        call edi
        jmp 2f
1:      int 0x80
2:      mov edi, eax
        sub esp, 4
        lea eax, [ebp+64]
        push eax
        push 1
        mov eax, [ebp+40]
        test eax, eax
        jz 4f
        call eax
        cmp dword ptr [ebp+48], 0
        je 5f
        mov dword ptr [esp], 1
        lea eax, [ebp+80]
        mov [esp+4], eax
        call [ebp+40]
        jmp 5f
4:      mov eax, 265
        mov ebx, 1
        lea ecx, [ebp+64]
        int 0x80
        cmp dword ptr [ebp+48], 0
        je 5f
        mov eax, 265
        lea ecx, [ebp+80]
        int 0x80
5:      add esp, 12
        mov eax, edi
        cdq
        pop ebp
        pop edi
        pop esi
        pop ebx
        ret
