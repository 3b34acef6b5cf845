@ CPU-bound guest loop for `make bench`. The loop count is at offset 0x40
@ (patched by the bench tool); each iteration is 8 instructions. It then
@ powers off through PSCI SYSTEM_OFF, so emu/ and QEMU run identical code.
	.syntax unified
	.arm
	.text
	.global _start
_start:
	ldr	r0, count
	mov	r1, #0
	mov	r2, #1
	ldr	r3, =0x40108000
	b	loop
	.org	0x40
count:	.word	1000000
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
