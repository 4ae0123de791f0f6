/*
 * gpu.c - hardware catalog: accelerators and interconnect links.
 *
 * Built-in values come from vendor datasheets (dense, i.e. without 2:4
 * sparsity, which datasheets headline); power levels by phase, prices and
 * latencies that no datasheet gives are marked "estimate" with their basis.
 * Users add or override GPUs with [gpu NAME] scenario sections (the
 * aiwi_kind_gpu component below); the public aiw_catalog_* functions list
 * the built-ins only, since they have no simulation to look in.
 *
 * Link latencies are NCCL's own per-step latencies for the ring algorithm
 * with the Simple protocol used for large messages (NCCL
 * src/graph/tuning.cc, hwLat: NVLink 3.4 us, PCIe 5.7 us, network 9.6 us).
 *
 * Achievable efficiencies.  bf16_gemm_eff and fp8_gemm_eff are the
 * training layout model's effective GEMM efficiencies (lib/training/step.c:
 * each fitted on one published row and predicting the others; they absorb
 * what that model does not price separately).  The serving iteration's
 * terms (iteration.c) use hardware figures: matmul_eff (fp8_matmul_eff for
 * FP8) is the Maximum Achievable Matmul FLOPS over the dense peak,
 * measured with BF16 inputs by brute force over shapes (S. Bekman,
 * "Machine Learning Engineering Open Book", compute/accelerator: A100 SXM
 * 85.9%, H100 SXM 80.1%, GH200 83.0%, MI300X 60.1% with ROCm 6.2); attn_eff
 * the attention kernels' fraction of the BF16 peak (FlashAttention-2, Dao
 * 2023: 50-73% on A100; FlashAttention-3, Shah et al. 2024: FlashAttention-2
 * at 35% on H100); mem_bw_eff the fraction of HBM bandwidth that streaming
 * reads reach (estimate: copy kernels measure about 90% of the peak).
 * Values without a measurement are marked "estimate".
 */
#include "hw/hw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-step latencies (s), NCCL tuning.cc hwLat[.][RING][SIMPLE]. */
#define LAT_NVLINK 3.4e-6
#define LAT_PCIE 5.7e-6
#define LAT_NET 9.6e-6

/* ======================================================================== */
/* built-in links                                                            */
/* ======================================================================== */
/* Bandwidths are data rates per direction: NVLink per GPU (all links), PCIe
 * per x16 slot after 128b/130b encoding, NICs at their line rate. */
static const aiwi_link_spec LINKS[] = {
	/* A100: 12 NVLink3 links x 25 GB/s per direction = 600 GB/s bidirectional */
	{"NVLink3", LAT_NVLINK, 300e9},
	/* H100/H200: 18 NVLink4 links x 25 GB/s = 900 GB/s bidirectional */
	{"NVLink4", LAT_NVLINK, 450e9},
	/* B200: 18 NVLink5 links x 50 GB/s = 1.8 TB/s bidirectional */
	{"NVLink5", LAT_NVLINK, 900e9},
	/* PCIe 4.0 x16: 16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s */
	{"PCIe4", LAT_PCIE, 31.5e9},
	/* PCIe 5.0 x16: 32 GT/s x 16 x 128/130 / 8 = 63 GB/s */
	{"PCIe5", LAT_PCIE, 63e9},
	/* InfiniBand 4x HDR 200 Gb/s, NDR 400 Gb/s, XDR 800 Gb/s (IBTA roadmap) */
	{"IB-HDR", LAT_NET, 200e9 / 8},
	{"IB-NDR", LAT_NET, 400e9 / 8},
	{"IB-XDR", LAT_NET, 800e9 / 8},
	/* RoCEv2 Ethernet; NCCL models every network with the same latency */
	{"RoCE-100G", LAT_NET, 100e9 / 8},
	{"RoCE-200G", LAT_NET, 200e9 / 8},
	{"RoCE-400G", LAT_NET, 400e9 / 8},
};
#define NLINKS (sizeof LINKS / sizeof *LINKS)

/* ======================================================================== */
/* built-in GPUs                                                             */
/* ======================================================================== */
/* Power phases that no datasheet gives (estimates, stated once here):
 *  - compute_w = prefill_w = TDP: dense GEMMs run at the power cap
 *    (aiworkload(7) HARDWARE CATALOG: training compute near TDP; H100 prefill 700 W);
 *  - decode_w ~ 0.54 TDP: H100's 380 W decode over 700 W (aiworkload(7) HARDWARE CATALOG),
 *    decode being memory-bound on every part;
 *  - comm_w ~ 0.5 TDP: collectives keep a few SMs and the HBM busy;
 *  - loading_w ~ idle + 0.05 TDP: weights stream in over PCIe, SMs idle.
 * Prices (aiworkload(7) HARDWARE CATALOG, "Prices"): price_usd is the
 * street price of the accelerator alone (module or card; the server, its
 * CPUs, NICs and switches are not in it: network_price, or a gpu_price of
 * the system per GPU); ondemand_usd_per_h is an on-demand price per
 * GPU-hour at specialised GPU clouds ("neoclouds") for the SXM/OAM parts,
 * the AWS list price for the single-GPU PCIe instances.  Hyperscaler list
 * prices for the large parts are 2-4x the neocloud ones (H100: AWS p5 and
 * Azure ND H100 v5 at $6-12/GPU-h; MI300X: Azure and Oracle at $6).  Each
 * figure has its source and date beside it; rents move by a factor of
 * several over a year. */
/* Achievable fraction of the dense peak on a transformer's weight GEMMs
 * and attention core (the training model's compute, aiworkload(7)
 * "Training"; element-wise kernels are costed apart, at mem_bw times the
 * training model's AIWI_ELEM_BW_EFF, and its collectives inside a node at
 * nvlink_bw times AIWI_NCCL_NVLINK_EFF).  Each is fitted on published
 * measurements through that model, with the layout, schedule, batch and
 * recomputation the measurement states:
 *  - EFF_BF16 on A100-80GB BF16, together with AIWI_ELEM_BW_EFF: Narayanan
 *    et al., "Efficient Large-Scale Language Model Training on GPU
 *    Clusters Using Megatron-LM", SC'21, Table 1, first and last rows
 *    (1.7B parameters, 32 GPUs, TP 1, PP 1, micro-batch 16, 137 TFLOP/s
 *    per GPU; 1T, 3072 GPUs, TP 8, PP 64, 163 TFLOP/s; full
 *    recomputation), two constants on two rows;
 *  - EFF_FP8 on H100-SXM FP8: NVIDIA NeMo Framework 24.09 performance
 *    summary, LLAMA2-7B pre-training on 8 H100 (TP 1, PP 1, GBS 128,
 *    MBS 1, sequence 4096, FP8): 16,934 tokens/s per GPU.
 * The other rows of both tables are predictions (tests/model/
 * test_training_layout.c).  Other GPUs and precisions take these two
 * values as estimates. */
#define EFF_BF16 0.7102
#define EFF_FP8 0.4662
/* A GPU with a measured Maximum Achievable Matmul FLOPS fraction m (S.
 * Bekman, "Machine Learning Engineering Open Book", compute/accelerator,
 * MAMF comparison table: brute-force matmul shapes, BF16 and FP8 inputs;
 * the rows with B300 and GB200, torch up to 2.10.0.dev20250916, read
 * 2026-12-07) takes the calibration scaled by m over the calibration
 * GPU's own fraction in the same table: BF16 EFF_BF16 x m / 0.859 (the
 * catalog's A100 matmul_eff, that table's A100 SXM row of CUDA 12.1),
 * FP8 EFF_FP8 x m / 0.709 (H100 SXM FP8, 1,402.6 of 1,979 TFLOP/s).  That
 * carries the GEMM kernels' measured difference; what else the calibration
 * absorbs (kernel gaps, launch overheads) is assumed to carry over
 * unchanged, an assumption no published training row checks for these
 * GPUs.  GPUs without a measurement keep the calibrations, marked
 * "estimate", and attention efficiencies without a published measurement
 * on that GPU are estimates: none was found for B200, MI300X or Gaudi. */
#define GEMM_BF16(m) (EFF_BF16 * (m) / 0.859)
#define GEMM_FP8(m) (EFF_FP8 * (m) / 0.709)

static const aiwi_gpu_spec GPUS[] = {
	{
		/* NVIDIA H100 Tensor Core GPU datasheet (SXM5): BF16 1,979 TFLOP/s
		 * with sparsity = 989 dense, FP8 3,958 sparse, 80 GB HBM3 at
		 * 3.35 TB/s, up to 700 W, NVLink 900 GB/s. */
		.name = "H100-SXM",
		.bf16_flops = 989e12,
		.fp8_flops = 1979e12,
		.mem_bytes = 80e9,
		.mem_bw = 3.35e12,
		.tdp_w = 700,
		.idle_w = 75,      /* aiworkload(7) HARDWARE CATALOG (measured idle ~75 W) */
		.compute_w = 700,  /* estimate: at the power cap */
		.comm_w = 350,     /* estimate */
		.prefill_w = 700,  /* aiworkload(7) HARDWARE CATALOG */
		.decode_w = 380,   /* aiworkload(7) HARDWARE CATALOG */
		.loading_w = 110,  /* estimate */
		.price_usd = 30000, /* street $25,000-40,000 by form factor and month, 2023-24
		                     * (Stratrix, "Why H100 GPUs command such pricing", read
		                     * 2026-12-01) */
		.ondemand_usd_per_h = 3.0, /* neocloud: Lambda $2.99, RunPod $3.49 per GPU-h
		                            * (Cliff Center, "AMD inference economics",
		                            * 2026-05-18); $2.49-3.99 typical (pricegpu,
		                            * early 2026); vendor list: AWS EC2 Capacity
		                            * Blocks p5.48xlarge $39.33 per instance-hour,
		                            * $4.916 per H100-hour (aws.amazon.com/ec2/
		                            * capacityblocks/pricing, 2024-25); p5.48xlarge
		                            * on demand $98.32 per instance-hour before
		                            * AWS's cut of up to 45% in June 2025 */
		.node_nameplate_w = 4600, /* DGX H100: 10.2 kW maximum (NVIDIA DGX H100 user
		                           * guide) less 8 x 700 W */
		.nvlink_bw = 450e9, /* NVLink4, 900 GB/s bidirectional */
		.nvlink_latency_s = LAT_NVLINK,
		.nic_bw = 50e9, /* DGX H100: one ConnectX-7 400 Gb/s per GPU */
		.nic_latency_s = LAT_NET,
		.bf16_gemm_eff = EFF_BF16, /* estimate: A100-80GB's calibration */
		.fp8_gemm_eff = EFF_FP8,   /* calibrated here: see EFF_FP8 */
		.matmul_eff = 0.801, /* MAMF 792.1 of 989 TFLOP/s (ml-engineering, compute/accelerator) */
		.fp8_matmul_eff = 0.801, /* estimate: as BF16 */
		.attn_eff = 0.35, /* FlashAttention-3 paper (Shah et al. 2024): FA2 reaches 35% on H100 */
		.mem_bw_eff = 0.9, /* estimate: streaming copies reach ~90% of HBM peak */
	},
	{
		/* NVIDIA H200 Tensor Core GPU datasheet (SXM): same Hopper compute
		 * as H100, 141 GB HBM3e at 4.8 TB/s, up to 700 W, NVLink 900 GB/s. */
		.name = "H200",
		.bf16_flops = 989e12,
		.fp8_flops = 1979e12,
		.mem_bytes = 141e9,
		.mem_bw = 4.8e12,
		.tdp_w = 700,
		.idle_w = 75, /* estimate: H100 board */
		.compute_w = 700,
		.comm_w = 350,
		.prefill_w = 700,
		.decode_w = 380,
		.loading_w = 110,
		.price_usd = 35000, /* estimate: H100's range plus the HBM3e (no list price) */
		.ondemand_usd_per_h = 3.8, /* neocloud: RunPod $3.59 (Deploybase, 2025-10-15),
		                            * $2.25 at the low end (packet.ai, 2026-01); AWS
		                            * capacity blocks $5.41 (p5e, 2024-25) */
		.node_nameplate_w = 4600, /* DGX H200: 10.2 kW maximum (NVIDIA DGX H200
		                           * datasheet) less 8 x 700 W */
		.nvlink_bw = 450e9,
		.nvlink_latency_s = LAT_NVLINK,
		.nic_bw = 50e9, /* DGX H200: ConnectX-7 400 Gb/s per GPU */
		.nic_latency_s = LAT_NET,
		.bf16_gemm_eff = EFF_BF16, /* estimate: A100-80GB's calibration (MAMF: "H200 is
		                            * the same" as H100 in BF16) */
		.fp8_gemm_eff = GEMM_FP8(0.734), /* MAMF FP8 1,453.4 of 1,979 (torch 2.7.1+cu128) */
		.matmul_eff = 0.83, /* MAMF of GH200 (same Hopper die): 821.0 of 989 */
		.fp8_matmul_eff = 0.734, /* MAMF FP8 1,453.4 of 1,979 TFLOP/s (ml-engineering) */
		.attn_eff = 0.35, /* as H100 (FlashAttention-3 paper) */
		.mem_bw_eff = 0.9, /* estimate */
	},
	{
		/* NVIDIA HGX B200 specifications divided by its 8 GPUs: BF16 36 PF
		 * and FP8 72 PF sparse -> 2.25 / 4.5 PF dense, 1.44 TB HBM3e
		 * (180 GB each) at 64 TB/s (8 TB/s each), 1,000 W per GPU,
		 * NVLink5 1.8 TB/s. */
		.name = "B200",
		.bf16_flops = 2250e12,
		.fp8_flops = 4500e12,
		.mem_bytes = 180e9,
		.mem_bw = 8e12,
		.tdp_w = 1000,
		.idle_w = 120, /* estimate: ~0.12 TDP like Hopper boards */
		.compute_w = 1000,
		.comm_w = 500,
		.prefill_w = 1000,
		.decode_w = 540,
		.loading_w = 170,
		.price_usd = 35000, /* the GPU alone: NVIDIA's CEO to CNBC, March 2024,
		                     * $30,000-40,000; a whole HGX/DGX B200 system is reported
		                     * near $500,000 per 8 GPUs (not verified here) */
		.ondemand_usd_per_h = 5.0, /* neocloud: $3.75 the lowest of 26 providers, $5.6
		                            * bare metal (packet.ai, 2026-06); AWS up to $14.24 */
		.node_nameplate_w = 6300, /* DGX B200: about 14.3 kW maximum (NVIDIA DGX B200
		                           * datasheet) less 8 x 1000 W */
		.nvlink_bw = 900e9,
		.nvlink_latency_s = LAT_NVLINK,
		.nic_bw = 50e9, /* DGX B200: ConnectX-7 400 Gb/s per GPU */
		.nic_latency_s = LAT_NET,
		.bf16_gemm_eff = GEMM_BF16(0.776), /* MAMF BF16 1,745.0 of 2,250 */
		.fp8_gemm_eff = GEMM_FP8(0.763),   /* MAMF FP8 3,432.5 of 4,500 */
		.matmul_eff = 0.776, /* MAMF 1,745.0 of 2,250 TFLOP/s, torch 2.7.1+cu128
		                      * (ml-engineering) */
		.fp8_matmul_eff = 0.763, /* MAMF FP8 3,432.5 of 4,500 TFLOP/s (ml-engineering) */
		.attn_eff = 0.35, /* estimate: as Hopper (no published B200 measurement found) */
		.mem_bw_eff = 0.9, /* estimate */
	},
	{
		/* NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB): BF16 312
		 * TFLOP/s dense, no FP8, 80 GB HBM2e at 2,039 GB/s, 400 W,
		 * NVLink 600 GB/s. */
		.name = "A100-80GB",
		.bf16_flops = 312e12,
		.fp8_flops = 0,
		.mem_bytes = 80e9,
		.mem_bw = 2.039e12,
		.tdp_w = 400,
		.idle_w = 55, /* estimate: typical nvidia-smi idle reading */
		.compute_w = 400,
		.comm_w = 200,
		.prefill_w = 400,
		.decode_w = 220,
		.loading_w = 75,
		.price_usd = 15000, /* street $8,000-15,000, the top for new parts (Mercatus,
		                     * "A100 vs H100 vs H200", 2026) */
		.ondemand_usd_per_h = 1.8, /* neocloud $1.49-2.49 (pricegpu, early 2026); AWS
		                            * capacity blocks $1.844 (p4d, 2024-25) */
		.node_nameplate_w = 3300, /* DGX A100: 6.5 kW maximum (NVIDIA DGX A100 user
		                           * guide) less 8 x 400 W */
		.nvlink_bw = 300e9, /* NVLink3 */
		.nvlink_latency_s = LAT_NVLINK,
		.nic_bw = 25e9, /* DGX A100: one ConnectX-6 HDR 200 Gb/s per GPU */
		.nic_latency_s = LAT_NET,
		.bf16_gemm_eff = EFF_BF16, /* calibrated here: see EFF_BF16 */
		.fp8_gemm_eff = EFF_FP8,   /* unused: no FP8 */
		.matmul_eff = 0.859, /* MAMF 267.9 of 312 TFLOP/s (ml-engineering) */
		.fp8_matmul_eff = 0.859, /* no FP8: unused */
		.attn_eff = 0.6, /* FlashAttention-2 paper (Dao 2023): 50-73% on A100 */
		.mem_bw_eff = 0.9, /* estimate */
	},
	{
		/* NVIDIA L40S datasheet: BF16 362 TFLOP/s dense (733 sparse), FP8
		 * 733 dense, 48 GB GDDR6 at 864 GB/s, 350 W, PCIe 4.0 x16, no
		 * NVLink. */
		.name = "L40S",
		.bf16_flops = 362e12,
		.fp8_flops = 733e12,
		.mem_bytes = 48e9,
		.mem_bw = 864e9,
		.tdp_w = 350,
		.idle_w = 35, /* estimate */
		.compute_w = 350,
		.comm_w = 175,
		.prefill_w = 350,
		.decode_w = 190,
		.loading_w = 53,
		.price_usd = 8000, /* retail $7,500-8,500 (runlocalai.co, read 2026-12-01);
		                    * module $7,000-10,000 (datastorage.com) */
		.ondemand_usd_per_h = 1.861, /* AWS g6e.xlarge (1 L40S), us-east-1 list (Modal,
		                              * 2025-08-12) */
		.nvlink_bw = 31.5e9, /* PCIe 4.0 x16 */
		.nvlink_latency_s = LAT_PCIE,
		.nic_bw = 12.5e9, /* estimate: 100 GbE per GPU in PCIe servers */
		.nic_latency_s = LAT_NET,
		.bf16_gemm_eff = EFF_BF16, /* estimate: A100-80GB's calibration */
		.fp8_gemm_eff = EFF_FP8,   /* estimate: H100-SXM's calibration */
		.matmul_eff = 0.8, /* estimate */
		.fp8_matmul_eff = 0.8, /* estimate */
		.attn_eff = 0.5, /* estimate */
		.mem_bw_eff = 0.85, /* estimate: GDDR6 */
	},
	{
		/* NVIDIA L4 datasheet: BF16 121 TFLOP/s dense (242 sparse), FP8
		 * 242.5 dense, 24 GB GDDR6 at 300 GB/s, 72 W, PCIe 4.0 x16. */
		.name = "L4",
		.bf16_flops = 121e12,
		.fp8_flops = 242.5e12,
		.mem_bytes = 24e9,
		.mem_bw = 300e9,
		.tdp_w = 72,
		.idle_w = 16, /* estimate */
		.compute_w = 72,
		.comm_w = 36,
		.prefill_w = 72,
		.decode_w = 40,
		.loading_w = 20,
		.price_usd = 2500, /* retail $2,500 (runlocalai.co, read 2026-12-01); MSRP
		                    * $2,345 (chipversus.com) */
		.ondemand_usd_per_h = 0.805, /* AWS g6.xlarge (1 L4), us-east-1 list, 2024-25 */
		.nvlink_bw = 31.5e9, /* PCIe 4.0 x16 */
		.nvlink_latency_s = LAT_PCIE,
		.nic_bw = 12.5e9, /* estimate */
		.nic_latency_s = LAT_NET,
		.bf16_gemm_eff = EFF_BF16, /* estimate: A100-80GB's calibration */
		.fp8_gemm_eff = EFF_FP8,   /* estimate: H100-SXM's calibration */
		.matmul_eff = 0.8, /* estimate */
		.fp8_matmul_eff = 0.8, /* estimate */
		.attn_eff = 0.5, /* estimate */
		.mem_bw_eff = 0.85, /* estimate: GDDR6 */
	},
	{
		/* AMD Instinct MI300X datasheet: FP16/BF16 1,307.4 TFLOP/s dense,
		 * FP8 2,614.9 dense, 192 GB HBM3 at 5.3 TB/s, 750 W; 7 Infinity
		 * Fabric links, 896 GB/s aggregate bidirectional. */
		.name = "MI300X",
		.bf16_flops = 1307.4e12,
		.fp8_flops = 2614.9e12,
		.mem_bytes = 192e9,
		.mem_bw = 5.3e12,
		.tdp_w = 750,
		.idle_w = 130, /* estimate: MI300X boards idle high */
		.compute_w = 750,
		.comm_w = 375,
		.prefill_w = 750,
		.decode_w = 410,
		.loading_w = 170,
		.price_usd = 15000, /* street $10,000-15,000 (awesomeagents.ai, read
		                     * 2026-12-01) */
		.ondemand_usd_per_h = 1.85, /* neocloud: Vultr $1.85, TensorWave $1.50; Azure
		                             * and Oracle list $6 (Cliff Center, 2026-05-18) */
		.nvlink_bw = 448e9, /* Infinity Fabric: 7 x 64 GB/s per direction */
		.nvlink_latency_s = LAT_NVLINK, /* RCCL keeps NCCL's model */
		.nic_bw = 50e9, /* 400 Gb/s NIC per GPU in 8-GPU platforms */
		.nic_latency_s = LAT_NET,
		.bf16_gemm_eff = GEMM_BF16(0.601), /* MAMF BF16 781.9 of 1,300, ROCm 6.2 */
		.fp8_gemm_eff = EFF_FP8,   /* estimate: H100-SXM's calibration (the MAMF table
		                            * has no MI300X FP8 measurement) */
		.matmul_eff = 0.601, /* MAMF 781.9 of 1,300 TFLOP/s, ROCm 6.2 (ml-engineering;
		                      * the table's later row, ROCm 6.3 with TunableOp, is
		                      * 668.4, 51.4%) */
		.fp8_matmul_eff = 0.601, /* estimate: as BF16 */
		.attn_eff = 0.35, /* estimate (no published MI300X measurement found) */
		.mem_bw_eff = 0.85, /* estimate */
	},
	{
		/* Intel Gaudi 2 (HL-225H; Intel Gaudi 3 white paper comparison
		 * table): BF16 432 TFLOP/s, FP8 865, 96 GB HBM2E at 2.45 TB/s,
		 * 600 W; 24 x 100 GbE RoCE on chip, 21 for scale-up, 3 scale-out. */
		.name = "Gaudi2",
		.bf16_flops = 432e12,
		.fp8_flops = 865e12,
		.mem_bytes = 96e9,
		.mem_bw = 2.45e12,
		.tdp_w = 600,
		.idle_w = 90, /* estimate */
		.compute_w = 600,
		.comm_w = 300,
		.prefill_w = 600,
		.decode_w = 325,
		.loading_w = 120,
		.price_usd = 8125, /* Intel, Computex 2024: 8-accelerator kit $65,000 */
		.ondemand_usd_per_h = 1.30, /* Intel Developer Cloud, 8x at $10.42/h (2024) */
		.nvlink_bw = 21 * 100e9 / 8,  /* 21 x 100 GbE = 262.5 GB/s */
		.nvlink_latency_s = LAT_NET,  /* scale-up is RoCE too */
		.nic_bw = 3 * 100e9 / 8,      /* 3 x 100 GbE */
		.nic_latency_s = LAT_NET,
		.bf16_gemm_eff = GEMM_BF16(0.969), /* MAMF BF16 418.7 of 432 */
		.fp8_gemm_eff = GEMM_FP8(0.955),   /* MAMF FP8 826.5 of 865 */
		.matmul_eff = 0.969, /* MAMF 418.7 of 432 TFLOP/s, PT_HPU_LAZY_MODE=1
		                      * (ml-engineering) */
		.fp8_matmul_eff = 0.955, /* MAMF FP8 826.5 of 865 TFLOP/s (ml-engineering) */
		.attn_eff = 0.5, /* estimate */
		.mem_bw_eff = 0.85, /* estimate */
	},
	{
		/* Intel Gaudi 3 white paper (HL-325L OAM): BF16 and FP8 1,835
		 * TFLOP/s, 128 GB HBM2E at 3.7 TB/s, 900 W; 24 x 200 GbE RoCE, 21
		 * for scale-up, 3 scale-out. */
		.name = "Gaudi3",
		.bf16_flops = 1835e12,
		.fp8_flops = 1835e12,
		.mem_bytes = 128e9,
		.mem_bw = 3.7e12,
		.tdp_w = 900,
		.idle_w = 130, /* estimate */
		.compute_w = 900,
		.comm_w = 450,
		.prefill_w = 900,
		.decode_w = 490,
		.loading_w = 175,
		.price_usd = 15625, /* Intel, Computex 2024: 8-accelerator kit $125,000 */
		.ondemand_usd_per_h = 0, /* no public per-GPU list price found */
		.nvlink_bw = 21 * 200e9 / 8,
		.nvlink_latency_s = LAT_NET,
		.nic_bw = 3 * 200e9 / 8,
		.nic_latency_s = LAT_NET,
		.bf16_gemm_eff = EFF_BF16, /* estimate: A100-80GB's calibration */
		.fp8_gemm_eff = EFF_FP8,   /* estimate: H100-SXM's calibration */
		.matmul_eff = 0.8, /* estimate: the MAMF table's Gaudi 3 row (1,243.0 TFLOP/s)
		                    * is against a 1,677 TFLOP/s peak, not this 1,835 */
		.fp8_matmul_eff = 0.8, /* estimate */
		.attn_eff = 0.5, /* estimate */
		.mem_bw_eff = 0.85, /* estimate */
	},
};
#define NGPUS (sizeof GPUS / sizeof *GPUS)

/* Where each built-in value comes from, for `aiworkload catalog NAME` and
 * aiw_catalog_gpu_source(3): one line per kind of field and GPU, in
 * GPUS' order.  Each starts with what it is: "datasheet", "measured"
 * (a published measurement of this GPU), "calibrated" (fitted here on
 * published rows), "list price", "street price" or "estimate" (no
 * measurement of this GPU: the basis is given); the comments in GPUS
 * above give the full references. */
enum {
	SRC_DATASHEET, /* bf16_flops, fp8_flops, mem_bytes, mem_bw, tdp_w */
	SRC_IDLE,      /* idle_w */
	SRC_PHASES,    /* compute_w, comm_w, prefill_w, decode_w, loading_w */
	SRC_PRICE,     /* price_usd */
	SRC_RENT,      /* ondemand_usd_per_h */
	SRC_FABRIC,    /* nvlink_bw, nic_bw */
	SRC_GEMM,      /* bf16_gemm_eff */
	SRC_GEMM_FP8,  /* fp8_gemm_eff */
	SRC_MATMUL,    /* matmul_eff */
	SRC_MATMUL_FP8, /* fp8_matmul_eff */
	SRC_ATTN,      /* attn_eff */
	SRC_MEMBW,     /* mem_bw_eff */
	SRC_NAMEPLATE, /* node_nameplate_w */
	NSRC
};
#define MAMF "S. Bekman, Machine Learning Engineering Open Book, MAMF table, read 2026-12-07"
#define PHASES_EST                                                                             \
	"estimate: compute and prefill at TDP, decode 380/700, comm 1/2, loading idle + 5% of TDP " \
	"(H100's measured levels scaled)"
#define CALIB_BF16_EST "estimate: A100-80GB's calibration on Megatron-LM SC'21 Table 1 (no training rows of this GPU)"
#define CALIB_FP8_EST "estimate: H100-SXM's calibration on NeMo 24.09 (no training rows of this GPU)"
static const char *const GPU_SOURCES[][NSRC] = {
	{ /* H100-SXM */
	 "datasheet: NVIDIA H100 Tensor Core GPU (SXM5), dense figures",
	 "measured: about 75 W idle (aiworkload(7) HARDWARE CATALOG)",
	 "measured: prefill 700 W, decode 380 W (aiworkload(7)); compute at TDP, comm and loading estimates",
	 "street price: $25,000-40,000, 2023-24 (Stratrix, read 2026-12-01)",
	 "list price: neoclouds $2.99-3.49/GPU-h (Lambda, RunPod; Cliff Center 2026-05-18)",
	 "datasheet: NVLink4 900 GB/s bidirectional; DGX H100 ConnectX-7 400 Gb/s per GPU",
	 CALIB_BF16_EST,
	 "calibrated: NeMo 24.09 Llama-2-7B FP8 on 8 H100, 16,934 tokens/s per GPU",
	 "measured: MAMF 792.1 of 989 TFLOP/s (" MAMF ")",
	 "estimate: as BF16 (the MAMF table's H100 FP8 row, 1,402.6 of 1,979 TFLOP/s, is not used here)",
	 "measured: FlashAttention-2 at 35% of peak on H100 (Shah et al. 2024, FlashAttention-3)",
	 "estimate: streaming copies reach about 90% of HBM peak",
	 "datasheet: DGX H100 10.2 kW maximum less 8 x 700 W (DGX H100 user guide)"},
	{ /* H200 */
	 "datasheet: NVIDIA H200 Tensor Core GPU (SXM), dense figures",
	 "estimate: as the H100 board",
	 PHASES_EST,
	 "estimate: H100's range plus the HBM3e (no list price)",
	 "list price: RunPod $3.59/GPU-h (Deploybase 2025-10-15); AWS capacity blocks $5.41",
	 "datasheet: NVLink4 900 GB/s bidirectional; DGX H200 ConnectX-7 400 Gb/s per GPU",
	 CALIB_BF16_EST,
	 "measured: MAMF FP8 1,453.4 of 1,979 TFLOP/s scaled onto the FP8 calibration (" MAMF ")",
	 "measured: MAMF 821.0 of 989 TFLOP/s on GH200, the same Hopper die (" MAMF ")",
	 "measured: MAMF FP8 1,453.4 of 1,979 TFLOP/s (" MAMF ")",
	 "measured on H100, the same die: FlashAttention-2 at 35% (Shah et al. 2024)",
	 "estimate: streaming copies reach about 90% of HBM peak",
	 "datasheet: DGX H200 10.2 kW maximum less 8 x 700 W (DGX H200 datasheet)"},
	{ /* B200 */
	 "datasheet: NVIDIA HGX B200 specifications divided by 8 GPUs, dense figures",
	 "estimate: about 0.12 TDP, as Hopper boards",
	 PHASES_EST,
	 "street price: $30,000-40,000 (NVIDIA's CEO to CNBC, March 2024)",
	 "list price: neoclouds $3.75-5.6/GPU-h (packet.ai, 2026-06)",
	 "datasheet: NVLink5 1.8 TB/s bidirectional; DGX B200 ConnectX-7 400 Gb/s per GPU",
	 "measured: MAMF BF16 1,745.0 of 2,250 TFLOP/s scaled onto the BF16 calibration (" MAMF ")",
	 "measured: MAMF FP8 3,432.5 of 4,500 TFLOP/s scaled onto the FP8 calibration (" MAMF ")",
	 "measured: MAMF 1,745.0 of 2,250 TFLOP/s (" MAMF ")",
	 "measured: MAMF FP8 3,432.5 of 4,500 TFLOP/s (" MAMF ")",
	 "estimate: as Hopper (no published B200 attention measurement found)",
	 "estimate: streaming copies reach about 90% of HBM peak",
	 "datasheet: DGX B200 about 14.3 kW maximum less 8 x 1,000 W (DGX B200 datasheet)"},
	{ /* A100-80GB */
	 "datasheet: NVIDIA A100 Tensor Core GPU (SXM4 80GB), dense figures",
	 "estimate: a typical nvidia-smi idle reading",
	 PHASES_EST,
	 "street price: $8,000-15,000 (Mercatus, 2026)",
	 "list price: neoclouds $1.49-2.49/GPU-h (pricegpu, early 2026); AWS $1.844",
	 "datasheet: NVLink3 600 GB/s bidirectional; DGX A100 ConnectX-6 200 Gb/s per GPU",
	 "calibrated: Megatron-LM SC'21 Table 1, first and last rows (Narayanan et al.)",
	 "unused: no FP8",
	 "measured: MAMF 267.9 of 312 TFLOP/s (" MAMF ")",
	 "unused: no FP8",
	 "measured: FlashAttention-2 at 50-73% on A100 (Dao 2023)",
	 "estimate: streaming copies reach about 90% of HBM peak",
	 "datasheet: DGX A100 6.5 kW maximum less 8 x 400 W (DGX A100 user guide)"},
	{ /* L40S */
	 "datasheet: NVIDIA L40S, dense figures",
	 "estimate: about 0.1 TDP (no published measurement)",
	 PHASES_EST,
	 "street price: $7,500-8,500 (runlocalai.co, read 2026-12-01)",
	 "list price: AWS g6e.xlarge, us-east-1 (Modal, 2025-08-12)",
	 "datasheet: PCIe 4.0 x16, no NVLink; estimate: 100 GbE per GPU",
	 CALIB_BF16_EST,
	 CALIB_FP8_EST,
	 "estimate: no published measurement of this GPU",
	 "estimate: no published measurement of this GPU",
	 "estimate: no published measurement of this GPU",
	 "estimate: GDDR6 streaming",
	 "unknown: 0"},
	{ /* L4 */
	 "datasheet: NVIDIA L4, dense figures",
	 "estimate: about 0.2 TDP (no published measurement)",
	 PHASES_EST,
	 "street price: $2,500 (runlocalai.co, read 2026-12-01)",
	 "list price: AWS g6.xlarge, us-east-1, 2024-25",
	 "datasheet: PCIe 4.0 x16, no NVLink; estimate: 100 GbE per GPU",
	 CALIB_BF16_EST,
	 CALIB_FP8_EST,
	 "estimate: no published measurement of this GPU",
	 "estimate: no published measurement of this GPU",
	 "estimate: no published measurement of this GPU",
	 "estimate: GDDR6 streaming",
	 "unknown: 0"},
	{ /* MI300X */
	 "datasheet: AMD Instinct MI300X, dense figures",
	 "estimate: MI300X boards idle high",
	 PHASES_EST,
	 "street price: $10,000-15,000 (awesomeagents.ai, read 2026-12-01)",
	 "list price: neoclouds $1.50-1.85/GPU-h (Vultr, TensorWave; Cliff Center 2026-05-18)",
	 "datasheet: Infinity Fabric 7 x 64 GB/s per direction; 400 Gb/s NIC per GPU",
	 "measured: MAMF BF16 781.9 of 1,300 TFLOP/s, ROCm 6.2, scaled onto the BF16 calibration (" MAMF ")",
	 "estimate: H100-SXM's FP8 calibration (no MI300X FP8 MAMF measurement)",
	 "measured: MAMF 781.9 of 1,300 TFLOP/s, ROCm 6.2 (" MAMF ")",
	 "estimate: as BF16 (no MI300X FP8 MAMF measurement)",
	 "estimate: no published MI300X attention measurement found",
	 "estimate: no published measurement of this GPU",
	 "unknown: 0"},
	{ /* Gaudi2 */
	 "datasheet: Intel Gaudi 2 (HL-225H), Gaudi 3 white paper comparison table",
	 "estimate: 0.15 TDP (no published measurement)",
	 PHASES_EST,
	 "list price: Intel, Computex 2024, 8-accelerator kit $65,000",
	 "list price: Intel Developer Cloud, 8 at $10.42/h (2024)",
	 "datasheet: 21 x 100 GbE scale-up, 3 x 100 GbE scale-out (RoCE on chip)",
	 "measured: MAMF BF16 418.7 of 432 TFLOP/s scaled onto the BF16 calibration (" MAMF ")",
	 "measured: MAMF FP8 826.5 of 865 TFLOP/s scaled onto the FP8 calibration (" MAMF ")",
	 "measured: MAMF 418.7 of 432 TFLOP/s, PT_HPU_LAZY_MODE=1 (" MAMF ")",
	 "measured: MAMF FP8 826.5 of 865 TFLOP/s (" MAMF ")",
	 "estimate: no published Gaudi 2 attention measurement found",
	 "estimate: no published measurement of this GPU",
	 "unknown: 0"},
	{ /* Gaudi3 */
	 "datasheet: Intel Gaudi 3 white paper (HL-325L OAM)",
	 "estimate: about 0.14 TDP (no published measurement)",
	 PHASES_EST,
	 "list price: Intel, Computex 2024, 8-accelerator kit $125,000",
	 "unknown: no public per-GPU list price found",
	 "datasheet: 21 x 200 GbE scale-up, 3 x 200 GbE scale-out (RoCE on chip)",
	 CALIB_BF16_EST,
	 CALIB_FP8_EST,
	 "estimate: the MAMF table's Gaudi 3 row is against a 1,677 TFLOP/s peak, not 1,835",
	 "estimate: no published measurement of this GPU",
	 "estimate: no published Gaudi 3 attention measurement found",
	 "estimate: no published measurement of this GPU",
	 "unknown: 0"},
};
_Static_assert(sizeof GPU_SOURCES / sizeof *GPU_SOURCES == NGPUS, "one source line set per built-in GPU");

size_t aiwi_hw_gpu_builtin_count(void) { return NGPUS; }
const aiwi_gpu_spec *aiwi_hw_gpu_builtin(size_t i) { return i < NGPUS ? &GPUS[i] : NULL; }
size_t aiwi_hw_link_builtin_count(void) { return NLINKS; }
const aiwi_link_spec *aiwi_hw_link_builtin(size_t i) { return i < NLINKS ? &LINKS[i] : NULL; }

bool aiwi_hw_ieq(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
		if (x >= 'A' && x <= 'Z')
			x = (unsigned char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (unsigned char)(y - 'A' + 'a');
		if (x != y)
			return false;
		if (!x)
			return true;
	}
}

static const aiwi_gpu_spec *builtin_gpu(const char *name)
{
	for (size_t i = 0; i < NGPUS; i++)
		if (aiwi_hw_ieq(GPUS[i].name, name))
			return &GPUS[i];
	return NULL;
}

static const aiwi_link_spec *builtin_link(const char *name)
{
	for (size_t i = 0; i < NLINKS; i++)
		if (aiwi_hw_ieq(LINKS[i].name, name))
			return &LINKS[i];
	return NULL;
}

/* ======================================================================== */
/* the fields: one table feeds the [gpu] parameters, the catalog lookups and */
/* the validation (X(key, type, unit, min, max, flags, fallback, doc))        */
/* ======================================================================== */
/* What an unset field becomes when there is no base GPU. */
enum {
	FB_REQUIRED,
	FB_ZERO,
	FB_SCALE_TDP,
	FB_INTRA_BW,
	FB_INTRA_LAT,
	FB_INTER_BW,
	FB_INTER_LAT,
	FB_H100
};

#define XP AIW_PF_EXCL_MIN
#define GPU_FIELDS(X)                                                                          \
	X(bf16_flops, FLOPS, "FLOP/s", 0, 1e18, XP, FB_REQUIRED,                                \
	  "dense BF16 tensor throughput (datasheet figure without sparsity)")                 \
	X(fp8_flops, FLOPS, "FLOP/s", 0, 1e18, 0, FB_ZERO, "dense FP8 tensor throughput; 0: no FP8") \
	X(mem_bytes, SIZE, "B", 0, 1e14, XP, FB_REQUIRED, "device memory")                       \
	X(mem_bw, BANDWIDTH, "B/s", 0, 1e15, XP, FB_REQUIRED, "device memory bandwidth")         \
	X(tdp_w, POWER, "W", 0, 1e5, XP, FB_REQUIRED, "board power limit")                        \
	X(idle_w, POWER, "W", 0, 1e5, 0, FB_SCALE_TDP,                                          \
	  "power when idle (default without base: tdp_w x 75/700, H100's ratio)")              \
	X(compute_w, POWER, "W", 0, 1e5, 0, FB_SCALE_TDP,                                       \
	  "power during training compute (default without base: tdp_w)")                       \
	X(comm_w, POWER, "W", 0, 1e5, 0, FB_SCALE_TDP,                                          \
	  "power during exposed communication (default without base: tdp_w / 2)")              \
	X(prefill_w, POWER, "W", 0, 1e5, 0, FB_SCALE_TDP,                                       \
	  "power during inference prefill (default without base: tdp_w)")                      \
	X(decode_w, POWER, "W", 0, 1e5, 0, FB_SCALE_TDP,                                        \
	  "power during inference decode (default without base: tdp_w x 380/700)")             \
	X(loading_w, POWER, "W", 0, 1e5, 0, FB_SCALE_TDP,                                       \
	  "power while loading weights (default without base: tdp_w x 110/700)")               \
	X(price_usd, MONEY, "USD", 0, 1e8, 0, FB_ZERO, "purchase price per GPU; 0: unknown")     \
	X(ondemand_usd_per_h, MONEY, "USD/h", 0, 1e4, 0, FB_ZERO,                               \
	  "cloud on-demand price per GPU-hour; 0: unknown")                                     \
	X(nvlink_bw, BANDWIDTH, "B/s", 0, 1e14, XP, FB_INTRA_BW,                                \
	  "scale-up bandwidth per GPU per direction, half the bidirectional datasheet figure "  \
	  "(default without base: PCIe 5.0 x16, 63 GB/s)")                                       \
	X(nvlink_latency_s, DURATION, "s", 0, 1, 0, FB_INTRA_LAT,                               \
	  "scale-up per-step latency (default without base: 5.7 us, NCCL's PCIe figure)")      \
	X(nic_bw, BANDWIDTH, "B/s", 0, 1e14, XP, FB_INTER_BW,                                   \
	  "scale-out network bandwidth per GPU per direction (default without base: "         \
	  "InfiniBand NDR, 50 GB/s)")                                                            \
	X(nic_latency_s, DURATION, "s", 0, 1, 0, FB_INTER_LAT,                                  \
	  "scale-out per-step latency (default without base: 9.6 us, NCCL's network figure)") \
	X(bf16_gemm_eff, REAL, "1", 0, 1, XP, FB_H100,                                         \
	  "achievable fraction of bf16_flops on a transformer's GEMMs (default without base: "  \
	  "H100-SXM's)")                                                                         \
	X(fp8_gemm_eff, REAL, "1", 0, 1, XP, FB_H100,                                          \
	  "achievable fraction of fp8_flops on a transformer's GEMMs (default without base: "   \
	  "H100-SXM's)")                                                                         \
	X(matmul_eff, REAL, "1", 0, 1, XP, FB_H100,                                               \
	  "achievable fraction of bf16_flops in large GEMMs (default without base: H100's)")   \
	X(fp8_matmul_eff, REAL, "1", 0, 1, XP, FB_H100,                                           \
	  "achievable fraction of fp8_flops in large GEMMs (default without base: H100's)")    \
	X(attn_eff, REAL, "1", 0, 1, XP, FB_H100,                                               \
	  "achievable fraction of bf16_flops in attention kernels (default without base: "     \
	  "H100's)")                                                                             \
	X(mem_bw_eff, REAL, "1", 0, 1, XP, FB_H100,                                             \
	  "achievable fraction of mem_bw in streaming reads (default without base: H100's)")   \
	X(node_nameplate_w, POWER, "W", 0, 1e6, 0, FB_ZERO,                                     \
	  "rated power of an 8-GPU node beyond its GPUs (the system's maximum less 8 x "        \
	  "tdp_w), the components' node_nameplate default; 0: unknown (DGX H100's 4.6 kW)")

enum {
	P_BASE,
#define X(k, t, u, lo, hi, fl, fb, doc) P_##k,
	GPU_FIELDS(X)
#undef X
	P_NPARAMS
};
#define NFIELDS (P_NPARAMS - 1)

static const aiwi_param_def GPU_PARAMS[P_NPARAMS] = {
	[P_BASE] = {.key = "base",
	            .full = "gpu.NAME.base",
	            .type = AIW_PT_STRING,
	            .unit = "",
	            .flags = AIW_PF_NONE,
	            .doc = "built-in GPU whose values fill the unset fields (e.g. H100-SXM); "
	                   "default: the built-in of the same name, if any"},
#define X(k, t, u, lo, hi, fl, fb, doc_)                                                      \
	[P_##k] = {.key = #k,                                                                   \
	           .full = "gpu.NAME." #k,                                                      \
	           .type = AIW_PT_##t,                                                          \
	           .unit = u,                                                                   \
	           .min = lo,                                                                   \
	           .max = hi,                                                                   \
	           .flags = (fl) | AIW_PF_NONE,                                                 \
	           .doc = doc_},
	GPU_FIELDS(X)
#undef X
};

typedef struct gpu_field {
	const char *key, *unit, *doc;
	size_t off;
	int fallback;
	bool positive; /* must be > 0 (else >= 0) */
} gpu_field;

static const gpu_field FIELDS[NFIELDS] = {
#define X(k, t, u, lo, hi, fl, fb, doc_) {#k, u, doc_, offsetof(aiwi_gpu_spec, k), fb, (fl) == XP},
	GPU_FIELDS(X)
#undef X
};

static inline double *fieldp(aiwi_gpu_spec *g, size_t i)
{
	return (double *)(void *)((char *)g + FIELDS[i].off);
}
static inline double fieldv(const aiwi_gpu_spec *g, size_t i)
{
	return *(const double *)(const void *)((const char *)g + FIELDS[i].off);
}

static size_t field_index(const char *key)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (aiwi_hw_ieq(FIELDS[i].key, key))
			return i;
	return SIZE_MAX;
}

/* ======================================================================== */
/* suggestions: the closest names by edit distance, or names containing the  */
/* query ("h100" -> H100-SXM), best first                                    */
/* ======================================================================== */
typedef struct suggest {
	char q[64];
	size_t qlen;
	const char *best[3];
	size_t dist[3];
} suggest;

static void lower_copy(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++) {
		unsigned char ch = (unsigned char)src[i];
		dst[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
	}
	dst[i] = '\0';
}

static void suggest_init(suggest *s, const char *query)
{
	memset(s, 0, sizeof *s);
	lower_copy(s->q, sizeof s->q, query);
	s->qlen = strlen(s->q);
}

static void suggest_add(suggest *s, const char *name)
{
	char n[64];
	lower_copy(n, sizeof n, name);
	size_t d = aiwi_edit_distance(s->q, n);
	size_t limit = s->qlen / 3 > 2 ? s->qlen / 3 : 2;
	bool contains = s->qlen >= 2 && strstr(n, s->q) != NULL;
	if (d == SIZE_MAX || (d > limit && !contains))
		return;
	if (contains)
		d = 0; /* "h100" means H100-SXM before H200 */
	for (size_t k = 0; k < 3; k++) {
		if (!s->best[k] || d < s->dist[k]) {
			for (size_t j = 2; j > k; j--) {
				s->best[j] = s->best[j - 1];
				s->dist[j] = s->dist[j - 1];
			}
			s->best[k] = name;
			s->dist[k] = d;
			return;
		}
	}
}

/* "; did you mean A, B?" or "; known: <all>" into buf. */
static void suggest_text(const suggest *s, char *buf, size_t len, const char *all)
{
	size_t n = 0;
	buf[0] = '\0';
	if (!s->best[0]) {
		snprintf(buf, len, "; known: %s", all);
		return;
	}
	n += (size_t)snprintf(buf, len, "; did you mean ");
	for (size_t k = 0; k < 3 && s->best[k] && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "", s->best[k]);
	if (n < len)
		snprintf(buf + n, len - n, "?");
}

static void gpu_names(char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < NGPUS && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", GPUS[i].name);
}

static void link_names(char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < NLINKS && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", LINKS[i].name);
}

/* ======================================================================== */
/* validation                                                                */
/* ======================================================================== */
static const char *const ORIGIN_TEXT[] = {"", " (inherited)", " (default)"};

static aiw_status check(aiw_sim *sim, const char *prefix, const aiwi_gpu_spec *g,
                        const unsigned char *origin)
{
#define ORG(i) (origin ? ORIGIN_TEXT[origin[i]] : "")
	for (size_t i = 0; i < NFIELDS; i++) {
		double v = fieldv(g, i);
		if (!isfinite(v) || v < 0 || (FIELDS[i].positive && v == 0))
			return aiwi_err(sim, AIW_ERANGE, "%s.%s = %g %s%s must be %s", prefix,
			                FIELDS[i].key, v, FIELDS[i].unit, ORG(i),
			                FIELDS[i].positive ? "finite and > 0" : "finite and >= 0");
	}
	/* every phase draws at least the idle power and at most the TDP */
	static const size_t PHASES[] = {P_compute_w - 1, P_comm_w - 1, P_prefill_w - 1,
	                                P_decode_w - 1, P_loading_w - 1};
	const size_t idle = P_idle_w - 1, tdp = P_tdp_w - 1;
	for (size_t k = 0; k < sizeof PHASES / sizeof *PHASES; k++) {
		size_t i = PHASES[k];
		double v = fieldv(g, i);
		if (v > g->tdp_w)
			return aiwi_err(sim, AIW_ERANGE, "%s.%s = %g W%s must not exceed tdp_w = %g W%s",
			                prefix, FIELDS[i].key, v, ORG(i), g->tdp_w, ORG(tdp));
		if (v < g->idle_w)
			return aiwi_err(sim, AIW_ERANGE, "%s.%s = %g W%s must be at least idle_w = %g W%s",
			                prefix, FIELDS[i].key, v, ORG(i), g->idle_w, ORG(idle));
	}
	/* busy phases must differ from idle, or utilisation would not show in power */
	if (g->idle_w >= g->compute_w)
		return aiwi_err(sim, AIW_ERANGE, "%s.idle_w = %g W%s must be below compute_w = %g W%s",
		                prefix, g->idle_w, ORG(idle), g->compute_w, ORG(P_compute_w - 1));
	if (g->idle_w >= g->prefill_w)
		return aiwi_err(sim, AIW_ERANGE, "%s.idle_w = %g W%s must be below prefill_w = %g W%s",
		                prefix, g->idle_w, ORG(idle), g->prefill_w, ORG(P_prefill_w - 1));
	return AIW_OK;
#undef ORG
}

aiw_status aiwi_hw_gpu_check(aiw_sim *sim, const char *prefix, const aiwi_gpu_spec *g)
{
	if (!g)
		return aiwi_err(sim, AIW_EINVAL, "aiwi_hw_gpu_check: spec is NULL");
	return check(sim, prefix ? prefix : "gpu", g, NULL);
}

/* ======================================================================== */
/* user GPUs: [gpu NAME] components                                          */
/* ======================================================================== */
/* Build c's spec into out: set fields, then base's, then the fallbacks. */
static aiw_status build(aiwi_comp *c, aiwi_gpu_spec *out)
{
	aiw_sim *sim = c->sim;
	const aiwi_gpu_spec *base = NULL;
	const char *base_from = NULL;
	if (aiwi_pset(c, P_BASE) && aiwi_ps(c, P_BASE) && aiwi_ps(c, P_BASE)[0]) {
		base_from = aiwi_ps(c, P_BASE);
		base = builtin_gpu(base_from);
		if (!base) {
			suggest s;
			char all[256], hint[320];
			suggest_init(&s, base_from);
			for (size_t i = 0; i < NGPUS; i++)
				suggest_add(&s, GPUS[i].name);
			gpu_names(all, sizeof all);
			suggest_text(&s, hint, sizeof hint, all);
			return aiwi_err(sim, AIW_EUNKNOWN, "%s.base = \"%s\" is not a built-in GPU%s",
			                c->prefix, base_from, hint);
		}
	} else {
		base = builtin_gpu(c->name); /* [gpu H100-SXM] overrides the built-in */
	}

	const aiwi_gpu_spec *h100 = &GPUS[0];
	unsigned char origin[NFIELDS];
	memset(out, 0, sizeof *out);
	out->name = c->name;
	for (size_t i = 0; i < NFIELDS; i++) {
		double *f = fieldp(out, i);
		if (aiwi_pset(c, i + 1)) {
			*f = aiwi_p(c, i + 1);
			origin[i] = 0;
			continue;
		}
		origin[i] = base ? 1 : 2;
		if (base) {
			*f = fieldv(base, i);
			continue;
		}
		switch (FIELDS[i].fallback) {
		case FB_REQUIRED:
			return aiwi_err(sim, AIW_ESCENARIO,
			                "%s.%s is not set: give it, or a base GPU to inherit from "
			                "(%s.base = H100-SXM)",
			                c->prefix, FIELDS[i].key, c->prefix);
		case FB_ZERO: *f = 0; break;
		/* tdp_w precedes every power field in the table, so it is known */
		case FB_SCALE_TDP: *f = fieldv(h100, i) / h100->tdp_w * out->tdp_w; break;
		case FB_INTRA_BW: *f = builtin_link("PCIe5")->bw; break;
		case FB_INTRA_LAT: *f = builtin_link("PCIe5")->alpha_s; break;
		case FB_INTER_BW: *f = builtin_link("IB-NDR")->bw; break;
		case FB_INTER_LAT: *f = builtin_link("IB-NDR")->alpha_s; break;
		case FB_H100: *f = fieldv(h100, i); break;
		}
	}
	return check(sim, c->prefix, out, origin);
}

/* (Re)build the spec of a [gpu] component into its state. */
static aiw_status user_spec(aiwi_comp *c, const aiwi_gpu_spec **out)
{
	if (!c->state) {
		c->state = calloc(1, sizeof(aiwi_gpu_spec));
		if (!c->state)
			return aiwi_err(c->sim, AIW_ENOMEM, "out of memory");
	}
	aiwi_gpu_spec tmp;
	aiw_status st = build(c, &tmp);
	if (st != AIW_OK)
		return st;
	*(aiwi_gpu_spec *)c->state = tmp;
	*out = c->state;
	return AIW_OK;
}

static aiw_status gpu_start(aiwi_comp *c)
{
	/* validate every [gpu] section at run start, used or not */
	const aiwi_gpu_spec *g;
	return user_spec(c, &g);
}

static void gpu_destroy(aiwi_comp *c)
{
	free(c->state);
	c->state = NULL;
}

const aiwi_kind aiwi_kind_gpu = {
	.name = "gpu",
	.params = GPU_PARAMS,
	.nparams = P_NPARAMS,
	.state_size = sizeof(aiwi_gpu_spec),
	.start = gpu_start,
	.destroy = gpu_destroy,
};

/* ======================================================================== */
/* lookups for the models                                                    */
/* ======================================================================== */
aiw_status aiwi_hw_gpu_get(aiw_sim *sim, const char *name, const aiwi_gpu_spec **out)
{
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiwi_hw_gpu_get: out is NULL");
	*out = NULL;
	if (!name || !name[0])
		return aiwi_err(sim, AIW_EINVAL, "GPU name is empty");
	size_t n = sim ? aiwi_ncomps(sim) : 0;
	for (size_t i = 0; i < n; i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (c && c->kind == &aiwi_kind_gpu && aiwi_hw_ieq(c->name, name))
			return user_spec(c, out);
	}
	const aiwi_gpu_spec *g = builtin_gpu(name);
	if (g) {
		*out = g;
		return AIW_OK;
	}
	suggest s;
	char all[256], hint[320];
	suggest_init(&s, name);
	for (size_t i = 0; i < n; i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (c && c->kind == &aiwi_kind_gpu)
			suggest_add(&s, c->name);
	}
	for (size_t i = 0; i < NGPUS; i++)
		suggest_add(&s, GPUS[i].name);
	gpu_names(all, sizeof all);
	suggest_text(&s, hint, sizeof hint, all);
	return aiwi_err(sim, AIW_EUNKNOWN,
	                "unknown GPU \"%s\"%s (add your own with a [gpu NAME] section)", name,
	                hint);
}

const aiwi_gpu_spec *aiwi_hw_gpu(aiw_sim *sim, const char *name)
{
	const aiwi_gpu_spec *g = NULL;
	return aiwi_hw_gpu_get(sim, name, &g) == AIW_OK ? g : NULL;
}

const aiwi_link_spec *aiwi_hw_link(aiw_sim *sim, const char *name)
{
	if (!name || !name[0]) {
		aiwi_err(sim, AIW_EINVAL, "link name is empty");
		return NULL;
	}
	const aiwi_link_spec *l = builtin_link(name);
	if (l)
		return l;
	suggest s;
	char all[256], hint[320];
	suggest_init(&s, name);
	for (size_t i = 0; i < NLINKS; i++)
		suggest_add(&s, LINKS[i].name);
	link_names(all, sizeof all);
	suggest_text(&s, hint, sizeof hint, all);
	aiwi_err(sim, AIW_EUNKNOWN, "unknown link \"%s\"%s", name, hint);
	return NULL;
}

void aiwi_hw_gpu_links(const aiwi_gpu_spec *g, aiwi_link_spec *intra, aiwi_link_spec *inter)
{
	if (intra)
		*intra = (aiwi_link_spec){"scale-up", g->nvlink_latency_s, g->nvlink_bw};
	if (inter)
		*inter = (aiwi_link_spec){"scale-out", g->nic_latency_s, g->nic_bw};
}

/* ======================================================================== */
/* public catalog (built-ins only: there is no simulation here)             */
/* ======================================================================== */
AIW_EXPORT aiw_status aiw_catalog_gpu_count(size_t *out)
{
	if (!out)
		return AIW_EINVAL;
	*out = NGPUS;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_catalog_gpu_name(size_t i, const char **out)
{
	if (!out)
		return AIW_EINVAL;
	if (i >= NGPUS)
		return AIW_ERANGE;
	*out = GPUS[i].name;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_catalog_gpu_value(const char *gpu, const char *field, double *out)
{
	if (!gpu || !field || !out)
		return AIW_EINVAL;
	const aiwi_gpu_spec *g = builtin_gpu(gpu);
	size_t i = field_index(field);
	if (!g || i == SIZE_MAX)
		return AIW_EUNKNOWN;
	*out = fieldv(g, i);
	return AIW_OK;
}

/* The source line kind (SRC_*) of field i (FIELDS' index). */
static int field_source(size_t i)
{
	static const struct {
		const char *key;
		int src;
	} MAP[] = {
		{"bf16_flops", SRC_DATASHEET}, {"fp8_flops", SRC_DATASHEET},
		{"mem_bytes", SRC_DATASHEET},  {"mem_bw", SRC_DATASHEET},
		{"tdp_w", SRC_DATASHEET},      {"idle_w", SRC_IDLE},
		{"compute_w", SRC_PHASES},     {"comm_w", SRC_PHASES},
		{"prefill_w", SRC_PHASES},     {"decode_w", SRC_PHASES},
		{"loading_w", SRC_PHASES},     {"price_usd", SRC_PRICE},
		{"ondemand_usd_per_h", SRC_RENT}, {"nvlink_bw", SRC_FABRIC},
		{"nic_bw", SRC_FABRIC},        {"bf16_gemm_eff", SRC_GEMM},
		{"fp8_gemm_eff", SRC_GEMM_FP8}, {"matmul_eff", SRC_MATMUL},
		{"fp8_matmul_eff", SRC_MATMUL_FP8}, {"attn_eff", SRC_ATTN},
		{"mem_bw_eff", SRC_MEMBW},     {"node_nameplate_w", SRC_NAMEPLATE},
	};
	for (size_t k = 0; k < sizeof MAP / sizeof *MAP; k++)
		if (strcmp(MAP[k].key, FIELDS[i].key) == 0)
			return MAP[k].src;
	return -1; /* the latencies: one source for every GPU */
}

AIW_EXPORT aiw_status aiw_catalog_gpu_source(const char *gpu, const char *field, const char **out)
{
	if (!gpu || !field || !out)
		return AIW_EINVAL;
	const aiwi_gpu_spec *g = builtin_gpu(gpu);
	size_t i = field_index(field);
	if (!g || i == SIZE_MAX)
		return AIW_EUNKNOWN;
	int src = field_source(i);
	*out = src >= 0 ? GPU_SOURCES[g - GPUS][src]
	                : "NCCL's per-step ring latency of the link (src/graph/tuning.cc hwLat)";
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_catalog_gpu_field(size_t i, const char **name, const char **unit,
                                            const char **doc)
{
	if (i >= NFIELDS)
		return AIW_ERANGE;
	if (name)
		*name = FIELDS[i].key;
	if (unit)
		*unit = FIELDS[i].unit;
	if (doc)
		*doc = FIELDS[i].doc;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_catalog_link_count(size_t *out)
{
	if (!out)
		return AIW_EINVAL;
	*out = NLINKS;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_catalog_link_name(size_t i, const char **out)
{
	if (!out)
		return AIW_EINVAL;
	if (i >= NLINKS)
		return AIW_ERANGE;
	*out = LINKS[i].name;
	return AIW_OK;
}

static const struct {
	const char *key, *unit, *doc;
} LINK_FIELDS[] = {
	{"alpha_s", "s", "per-message (per ring step) latency"},
	{"bw", "B/s", "bandwidth per direction"},
};

AIW_EXPORT aiw_status aiw_catalog_link_value(const char *link, const char *field, double *out)
{
	if (!link || !field || !out)
		return AIW_EINVAL;
	const aiwi_link_spec *l = builtin_link(link);
	if (!l)
		return AIW_EUNKNOWN;
	if (aiwi_hw_ieq(field, "alpha_s"))
		*out = l->alpha_s;
	else if (aiwi_hw_ieq(field, "bw"))
		*out = l->bw;
	else
		return AIW_EUNKNOWN;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_catalog_link_field(size_t i, const char **name, const char **unit,
                                             const char **doc)
{
	if (i >= sizeof LINK_FIELDS / sizeof *LINK_FIELDS)
		return AIW_ERANGE;
	if (name)
		*name = LINK_FIELDS[i].key;
	if (unit)
		*unit = LINK_FIELDS[i].unit;
	if (doc)
		*doc = LINK_FIELDS[i].doc;
	return AIW_OK;
}
