@ Fixed differential-test image: reads the CP15/CP14 identification and
@ reset-state registers Linux looks at and sends them to the PL011, then
@ powers off. emu/ must match QEMU's cortex-a15 (DBGDIDR, which emu/ reads
@ as zero on purpose, is left out).
	.syntax unified
	.arch	armv7-a
	.arm
	.text
	.global _start
_start:
	ldr	r1, =0x09000000
	.macro	out reg
	mov	r2, #4
9:	strb	\reg, [r1]
	lsr	\reg, \reg, #8
	subs	r2, r2, #1
	bne	9b
	.endm
	.macro	cp15 opc1, crn, crm, opc2
	mrc	p15, \opc1, r0, \crn, \crm, \opc2
	out	r0
	.endm
	cp15	0, c0, c0, 0		@ MIDR
	cp15	0, c0, c0, 1		@ CTR
	cp15	0, c0, c0, 3		@ TLBTR
	cp15	0, c0, c0, 5		@ MPIDR
	cp15	0, c0, c0, 6		@ REVIDR
	cp15	0, c0, c1, 0		@ ID_PFR0
	cp15	0, c0, c1, 1		@ ID_PFR1
	cp15	0, c0, c1, 2		@ ID_DFR0
	cp15	0, c0, c1, 3		@ ID_AFR0
	cp15	0, c0, c1, 4		@ ID_MMFR0
	cp15	0, c0, c1, 5		@ ID_MMFR1
	cp15	0, c0, c1, 6		@ ID_MMFR2
	cp15	0, c0, c1, 7		@ ID_MMFR3
	cp15	0, c0, c2, 0		@ ID_ISAR0
	cp15	0, c0, c2, 1		@ ID_ISAR1
	cp15	0, c0, c2, 2		@ ID_ISAR2
	cp15	0, c0, c2, 3		@ ID_ISAR3
	cp15	0, c0, c2, 4		@ ID_ISAR4
	cp15	0, c0, c2, 5		@ ID_ISAR5
	cp15	1, c0, c0, 1		@ CLIDR
	cp15	1, c0, c0, 7		@ AIDR
	mov	r0, #0
	mcr	p15, 2, r0, c0, c0, 0	@ CSSELR = L1 D
	cp15	1, c0, c0, 0		@ CCSIDR
	mov	r0, #1
	mcr	p15, 2, r0, c0, c0, 0	@ CSSELR = L1 I
	cp15	1, c0, c0, 0
	mov	r0, #2
	mcr	p15, 2, r0, c0, c0, 0	@ CSSELR = L2
	cp15	1, c0, c0, 0
	cp15	0, c1, c0, 0		@ SCTLR
	cp15	0, c1, c0, 2		@ CPACR
	cp15	0, c2, c0, 2		@ TTBCR
	cp15	0, c3, c0, 0		@ DACR
	cp15	0, c9, c12, 0		@ PMCR
	cp15	0, c10, c2, 0		@ PRRR
	cp15	0, c10, c2, 1		@ NMRR
	cp15	0, c12, c0, 0		@ VBAR
	cp15	0, c13, c0, 1		@ CONTEXTIDR
	cp15	0, c14, c0, 0		@ CNTFRQ
	cp15	0, c14, c1, 0		@ CNTKCTL
	cp15	0, c14, c2, 1		@ CNTP_CTL
	cp15	0, c14, c3, 1		@ CNTV_CTL
	mrc	p14, 6, r0, c0, c0, 0	@ TEECR
	out	r0
	ldr	r0, =0x84000008
	.word	0xe1400070		@ hvc #0
1:	b	1b
	.ltorg
