; The bottleneck's ECN marker of bench/dcqcn: a tc classifier (eBPF, direct action) on the egress of the
; shaped veth that keeps a phantom queue (HULL, Alizadeh et al., NSDI 2012): the bytes that arrived less
; those that the shaper's rate drained since, capped at the shaper's queue limit, which is the backlog the
; tbf qdisc behind it builds from the same packets. It marks ECN-capable packets CE (bpf_skb_ecn_set_ce,
; helper 97; not-ECT packets stay as they are) as RED does on the DCQCN switch: never below KMIN bytes,
; always above KMAX, in between with probability PMAX * (q - KMIN) / (KMAX - KMIN). This kernel has no
; sch_red, fq_codel, netem, pie or cake (see bench/dcqcn), and the machine no clang: this file is LLVM IR
; written by hand; bench/dcqcn fills in the @PARAMETERS@ and compiles it with `llc -march=bpf`.
; State: one 16-byte .bss global {last ns, backlog bytes}; updates from two CPUs may race (the marking
; probability is off by one packet at worst). Helpers: 5 ktime_get_ns, 7 get_prandom_u32, 97 skb_ecn_set_ce.
target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n32:64-S128"
target triple = "bpf"

@state = dso_local global [2 x i64] zeroinitializer, section ".bss", align 8
@_license = dso_local global [4 x i8] c"GPL\00", section "license", align 1

define dso_local i32 @pq_mark(i8* %skb) section "classifier" {
entry:
  %lenp = bitcast i8* %skb to i32*
  %len32 = load i32, i32* %lenp, align 4
  %len = zext i32 %len32 to i64
  %now = call i64 inttoptr (i64 5 to i64 ()*)()
  %lastp = getelementptr inbounds [2 x i64], [2 x i64]* @state, i64 0, i64 0
  %qp = getelementptr inbounds [2 x i64], [2 x i64]* @state, i64 0, i64 1
  %last = load volatile i64, i64* %lastp, align 8
  %q = load volatile i64, i64* %qp, align 8
  %dt = sub i64 %now, %last
  %big = icmp ugt i64 %dt, 1000000000
  %dt2 = select i1 %big, i64 1000000000, i64 %dt
  %dr = mul i64 %dt2, @RATE_BYTES@
  %drained = udiv i64 %dr, 1000000000
  %gt = icmp ugt i64 %q, %drained
  %qd = sub i64 %q, %drained
  %q1 = select i1 %gt, i64 %qd, i64 0
  %q2 = add i64 %q1, %len
  %cap = icmp ugt i64 %q2, @LIMIT@
  %q3 = select i1 %cap, i64 @LIMIT@, i64 %q2
  store volatile i64 %now, i64* %lastp, align 8
  store volatile i64 %q3, i64* %qp, align 8
  %hi = icmp ugt i64 %q3, @KMAX@
  br i1 %hi, label %mark, label %mid
mid:
  %lo = icmp ugt i64 %q3, @KMIN@
  br i1 %lo, label %rand, label %pass
rand:
  %r = call i64 inttoptr (i64 7 to i64 ()*)()
  %rm = and i64 %r, 65535
  %over = sub i64 %q3, @KMIN@
  %num = mul i64 %over, @PMAX65536@
  %thr = udiv i64 %num, @KRANGE@
  %m = icmp ult i64 %rm, %thr
  br i1 %m, label %mark, label %pass
mark:
  %c = call i64 inttoptr (i64 97 to i64 (i8*)*)(i8* %skb)
  br label %pass
pass:
  ret i32 0
}
