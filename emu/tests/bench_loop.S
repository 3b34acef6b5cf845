@ CPU-bound guest loop for `make bench`. The loop count is at offset 0x40
@ (patched by the bench tool); each iteration is 8 instructions. It then
@ powers off through PSCI SYSTEM_OFF, so emu/ and QEMU run identical code.
@ A nonzero word at 0x44 (emu/ only) first starts PMU counters of
@ instructions, loads, stores, PC writes and cycles, for the cost of
@ counting (the fast engine's counting blocks: 3 events an iteration).
	.syntax unified
	.arm
	.text
	.global _start
_start:
	ldr	r0, count
	mov	r1, #0
	mov	r2, #1
	ldr	r3, =0x40108000
	ldr	r5, pmu
	b	setup
	.org	0x40
count:	.word	1000000
pmu:	.word	0
setup:
	cmp	r5, #0
	beq	loop
	.irp	k, 0, 1, 2, 3
	mov	r6, #\k
	mcr	p15, 0, r6, c9, c12, 5		@ PMSELR = k
	mov	r6, #(0x0c070608 >> (8 * \k)) & 0xff
	mcr	p15, 0, r6, c9, c13, 1		@ PMXEVTYPER: 08 06 07 0c
	.endr
	ldr	r6, =0x8000000f
	mcr	p15, 0, r6, c9, c12, 1		@ PMCNTENSET: them and PMCCNTR
	mov	r6, #1
	mcr	p15, 0, r6, c9, c12, 0		@ PMCR.E
loop:
	add	r1, r1, r2
	eor	r2, r2, r1, lsl #3
	str	r1, [r3]
	ldr	r4, [r3]
	orr	r2, r2, #1
	add	r1, r1, r4, lsr #1
	subs	r0, r0, #1
	bne	loop
	ldr	r0, =0x84000008
	.word	0xe1400070		@ hvc #0
1:	b	1b
	.ltorg
