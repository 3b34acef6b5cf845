@ Frame for the differential-test images (see dt.h for the layout). The
@ generator fills in the register table, the data area and the random body;
@ the same bytes run on emu/ and on qemu-system-arm -M virt.
	.syntax unified
	.arm
	.text
	.global _start
_start:
	ldr	r0, =init
	ldr	r1, [r0, #64]
	msr	APSR_nzcvqg, r1
	ldm	r0, {r0-r14}
	b	body
	.ltorg

@ Epilogue: save r0-r14 and the CPSR, then send them and the data area to
@ the PL011 and power off through PSCI SYSTEM_OFF (HVC conduit).
	.org	0x100
epilogue:
	str	r0, save
	ldr	r0, =save + 4
	stm	r0, {r1-r14}
	mrs	r1, cpsr
	str	r1, [r0, #56]
	ldr	r1, =0x09000000
	ldr	r2, =save
	mov	r3, #64
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
	.word	0xe1400070		@ hvc #0
3:	b	3b
	.ltorg

	.org	0x700
save:	.space	64
	.org	0x800
init:	.space	68
	.org	0x1000
data:	.space	0x2000
body:
