@ Frame for the differential-test images (layout in dt.h). The generator
@ fills in the init table, the translation tables, the data area and the
@ random body; the same bytes run on emu/ and on qemu-system-arm -M virt.
@
@ The body runs in System or User mode, with the MMU on or off, as the
@ config word says. Undefined, SVC, Prefetch Abort and Data Abort handlers
@ fold what they see (SPSR, LR, FSR, FAR) into a hash and skip the
@ instruction, so faults are compared too.
@ With DT_CFG_PMU the frame first starts PMU counters of loads, stores, PC
@ writes and instructions; emu/ compares them between its engines (QEMU's
@ are not compared: it counts none of the first three).
	.syntax unified
	.arch	armv7-a
	.arm
	.text
	.global _start
_start:
	ldr	r0, =vectors
	mcr	p15, 0, r0, c12, c0, 0		@ VBAR
	cps	#0x17				@ Abort mode stack
	ldr	sp, =stack_abt
	cps	#0x1b				@ Undefined mode stack
	ldr	sp, =stack_und
	cps	#0x13
	ldr	sp, =stack_svc
	ldr	r4, =init
	ldr	r5, [r4, #68]			@ config
	ldr	r0, [r4, #72]
	mcr	p15, 0, r0, c2, c0, 0		@ TTBR0
	ldr	r0, [r4, #76]
	mcr	p15, 0, r0, c3, c0, 0		@ DACR
	mrc	p15, 0, r0, c1, c0, 0
	ldr	r1, [r4, #80]
	orr	r0, r0, r1
	mcr	p15, 0, r0, c1, c0, 0		@ SCTLR |= init[80]
	isb
	tst	r5, #4				@ DT_CFG_PMU
	beq	1f
	mov	r0, #3
	mcr	p15, 0, r0, c9, c12, 5		@ PMSELR
	mov	r0, #0x08
	mcr	p15, 0, r0, c9, c13, 1		@ 3: instructions
	mov	r0, #2
	mcr	p15, 0, r0, c9, c12, 5
	mov	r0, #0x0c
	mcr	p15, 0, r0, c9, c13, 1		@ 2: PC writes
	mov	r0, #1
	mcr	p15, 0, r0, c9, c12, 5
	mov	r0, #0x07
	mcr	p15, 0, r0, c9, c13, 1		@ 1: stores
	mov	r0, #0
	mcr	p15, 0, r0, c9, c12, 5
	mov	r0, #0x06
	mcr	p15, 0, r0, c9, c13, 1		@ 0: loads
	mov	r0, #0xf
	mcr	p15, 0, r0, c9, c12, 1		@ PMCNTENSET
	mov	r0, #7
	mcr	p15, 0, r0, c9, c12, 0		@ PMCR: E, P, C
1:	mrs	r0, cpsr
	bic	r0, r0, #0x1f
	tst	r5, #2
	orreq	r0, r0, #0x1f			@ System mode body
	orrne	r0, r0, #0x10			@ User mode body
	msr	cpsr_c, r0
	mov	r0, r4
	ldr	r1, [r0, #64]
	msr	APSR_nzcvqg, r1
	ldm	r0, {r0-r14}
	b	enter
	.ltorg

@ The generator puts "b body" (ARM body) or "blx body" (Thumb body) here.
	.org	0xfc
enter:	b	body

@ Epilogue: save r0-r14 and the CPSR, send them, the fault log and the data
@ area to the PL011, then power off (SVC to the handler, which issues PSCI
@ SYSTEM_OFF through HVC).
	.org	0x100
epilogue:
	str	r0, save
	ldr	r0, =save + 4
	stm	r0, {r1-r14}
	mrs	r1, cpsr
	str	r1, [r0, #56]
	ldr	r1, =0x09000000
	ldr	r2, =save
	mov	r3, #96
1:	ldrb	r4, [r2], #1
	str	r4, [r1]
	subs	r3, r3, #1
	bne	1b
	ldr	r2, =data
	mov	r3, #0x2000
2:	ldrb	r4, [r2], #1
	str	r4, [r1]
	subs	r3, r3, #1
	bne	2b
	ldr	r0, =0x84000008
	svc	#0
3:	b	3b
	.ltorg

@ log: hash, count, then the last record (type, SPSR, LR, FSR, FAR).
	.macro	record type, fsr, far
	push	{r0-r3, lr}
	ldr	r3, =log
	mov	r0, #\type
	str	r0, [r3, #8]
	mrs	r0, spsr
	str	r0, [r3, #12]
	str	lr, [r3, #16]
	.ifnb	\fsr
	mrc	p15, 0, r0, c5, c0, \fsr
	.else
	mov	r0, #0
	.endif
	str	r0, [r3, #20]
	.ifnb	\far
	mrc	p15, 0, r0, c6, c0, \far
	.else
	mov	r0, #0
	.endif
	str	r0, [r3, #24]
	ldr	r2, [r3]
	ldr	r1, [r3, #8]
	eor	r2, r1, r2, ror #27
	ldr	r1, [r3, #12]
	eor	r2, r1, r2, ror #27
	ldr	r1, [r3, #16]
	eor	r2, r1, r2, ror #27
	ldr	r1, [r3, #20]
	eor	r2, r1, r2, ror #27
	ldr	r1, [r3, #24]
	eor	r2, r1, r2, ror #27
	str	r2, [r3]
	ldr	r2, [r3, #4]
	add	r2, r2, #1
	str	r2, [r3, #4]
	pop	{r0-r3, lr}
	.endm

und_handler:
	record	1
	movs	pc, lr
svc_handler:
	push	{r1}
	ldr	r1, =0x84000008
	cmp	r0, r1
	pop	{r1}
	beq	power_off
	record	2
	movs	pc, lr
pabt_handler:
	record	3, 1, 2
	movs	pc, lr
dabt_handler:
	record	4, 0, 0
	subs	pc, lr, #4		@ ARM bodies only: Thumb ones run MMU off
power_off:
	.word	0xe1400070		@ hvc #0
4:	b	4b
	.ltorg

	.balign	32
vectors:
	b	.
	b	und_handler
	b	svc_handler
	b	pabt_handler
	b	dabt_handler
	b	.
	b	.
	b	.

	.org	0x600
	.space	64
stack_svc:
	.space	64
stack_abt:
	.space	64
stack_und:
	.org	0x700
save:	.space	64
log:	.space	32
	.org	0x800
init:	.space	84
	.org	0x1000
data:	.space	0x2000
	.org	0x9000
body:
