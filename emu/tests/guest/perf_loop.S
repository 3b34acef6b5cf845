@ panlab-perf-loop: a program of known length for perf in the guest (perf.sh).
@ From its exec, where perf stat starts counting, it executes exactly
@ 2 * LOOPS + 3 user instructions: the ldr, LOOPS times subs and bne, the mov
@ and the svc that exits (status 0: r0 counts down to 0). No libc, so nothing
@ else runs at PL0. The loop is a function symbol, for perf report to name.
	.equ	LOOPS, 1000000
	.text
	.arm
	.global	_start
_start:
	ldr	r0, =LOOPS
	.global	panlab_loop
	.type	panlab_loop, %function
panlab_loop:
	subs	r0, r0, #1
	bne	panlab_loop
	.size	panlab_loop, . - panlab_loop
	mov	r7, #1			@ __NR_exit
	svc	#0
	.ltorg
