"""Occupancy on the real KB against cuda_occupancy.h's own arithmetic, computed independently here.

:func:`header_occupancy` is the header's algorithm for CC >= 7 written from its documented rules
(cudaOccMaxBlocksPerSMWarpsLimit, ...RegsLimit, ...SmemLimit, cudaOccMaxBlocksPerMultiprocessor) with
the device properties of the CUDA Programming Guide's Tables 30-32; the KB must give the same
resident blocks and name the same limiting factors for every case.
"""
from __future__ import annotations

import json

import pytest

from conftest import share_kb_with_cli
from hwkb.cli.main import main


@pytest.fixture(autouse=True)
def _one_kb_for_every_command(monkeypatch, real_kb):
    """The commands here all ask the default KB: load it once, not once per command."""
    share_kb_with_cli(monkeypatch, real_kb)

# CC: (max threads per SM, max blocks per SM, shared memory per SM in bytes (the default carve-out),
#      shared-memory allocation granularity, reserved shared memory per block)
DEVICE = {
    "7.0": (2048, 32, 96 * 1024, 256, 0),
    "7.5": (1024, 16, 64 * 1024, 256, 0),
    "8.0": (2048, 32, 164 * 1024, 128, 1024),
    "8.6": (1536, 16, 100 * 1024, 128, 1024),
    "8.9": (1536, 24, 100 * 1024, 128, 1024),
    "9.0": (2048, 32, 228 * 1024, 128, 1024),
    "10.0": (2048, 32, 228 * 1024, 128, 1024),
    "12.0": (1536, 24, 100 * 1024, 128, 1024),
}
# the supported shared-memory sizes in KB (Programming Guide Table 32; Volta from cudaOccAlignUpShmemSizeVoltaPlus)
CAPACITIES = {"7.0": (0, 8, 16, 32, 64, 96), "7.5": (32, 64), "8.0": (0, 8, 16, 32, 64, 100, 132, 164),
              "8.6": (0, 8, 16, 32, 64, 100), "8.9": (0, 8, 16, 32, 64, 100),
              "9.0": (0, 8, 16, 32, 64, 100, 132, 164, 196, 228), "10.0": (0, 8, 16, 32, 64, 100, 132, 164, 196, 228),
              "12.0": (0, 8, 16, 32, 64, 100)}
REGS_PER_SM, SUB_PARTITIONS, REG_GRANULARITY, WARP = 65536, 4, 256, 32
INT_MAX = 2 ** 31 - 1


def round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def align_up_to_capacity(cc: str, size: int) -> int:
    """cudaOccAlignUpShmemSizeVoltaPlus: the least supported shared-memory size that holds ``size``."""
    return next(k * 1024 for k in CAPACITIES[cc] if size <= k * 1024)


def header_occupancy(cc: str, threads: int, regs: int, smem: int, carveout: int | None = None) -> tuple[int, set[str]]:
    """Resident blocks per SM and the limiting factors, as cuda_occupancy.h computes them.

    ``carveout`` is the preference in percent (None: SHAREDMEM_CARVEOUT_DEFAULT, the SM's whole shared memory).
    """
    max_threads, max_blocks, smem_per_sm, granularity, reserved = DEVICE[cc]
    warps = -(-threads // WARP)
    limits = {"blocks_limit_warps": (max_threads // WARP) // warps}
    regs_per_warp = round_up(regs * WARP, REG_GRANULARITY)
    limits["blocks_limit_regs"] = ((REGS_PER_SM // SUB_PARTITIONS) // regs_per_warp) * SUB_PARTITIONS // warps
    allocated = round_up(smem + reserved, granularity)
    preference = align_up_to_capacity(cc, smem_per_sm if carveout is None else carveout * smem_per_sm // 100)
    sm_smem = preference if preference >= allocated else align_up_to_capacity(cc, allocated)
    limits["blocks_limit_smem"] = sm_smem // allocated if allocated else INT_MAX
    limits["max_blocks_per_sm"] = max_blocks
    least = min(limits.values())
    return least, {name for name, value in limits.items() if value == least}


CASES = [  # (CC, threads per block, registers per thread, shared memory per block in bytes)
    ("7.0", 256, 32, 0), ("7.0", 128, 64, 8192), ("7.0", 1024, 32, 0), ("7.0", 96, 40, 49152),
    ("7.5", 256, 32, 0), ("7.5", 128, 96, 16384), ("7.5", 64, 16, 0), ("7.5", 512, 64, 32768),
    ("8.0", 256, 64, 0), ("8.0", 128, 32, 0), ("8.0", 32, 16, 0), ("8.0", 256, 40, 48 * 1024),
    ("8.0", 1024, 64, 0), ("8.0", 192, 72, 20000), ("8.0", 160, 128, 4000),
    ("8.6", 256, 64, 0), ("8.6", 128, 32, 12288), ("8.6", 384, 48, 0), ("8.6", 64, 255, 0),
    ("8.9", 256, 32, 0), ("8.9", 96, 24, 2048), ("8.9", 512, 80, 40000),
    ("9.0", 256, 128, 0), ("9.0", 128, 168, 0), ("9.0", 384, 80, 100000), ("9.0", 64, 32, 9000),
    ("9.0", 1024, 32, 227 * 1024 - 1024),
    ("10.0", 256, 64, 0), ("10.0", 128, 32, 65536), ("10.0", 640, 48, 0),
    ("12.0", 256, 64, 0), ("12.0", 32, 32, 0), ("12.0", 128, 40, 30000), ("12.0", 224, 56, 1),
]


def solve(capsys, variable: str, gpu: str, threads: int, regs: int, smem: int, carveout: int | None = None) -> dict:
    extra = [] if carveout is None else ["--set", f"smem_carveout={carveout}%"]
    code = main(["solve", variable, "--gpu", gpu, "--set", f"threads_per_block={threads}",
                 "--set", f"regs_per_thread={regs}", "--set", f"smem_per_block={smem}", *extra, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    return out


@pytest.mark.parametrize("cc,threads,regs,smem", CASES)
def test_resident_blocks_and_limiters_match_the_header(capsys, cc, threads, regs, smem):
    blocks, limiters = header_occupancy(cc, threads, regs, smem)
    out = solve(capsys, "blocks_per_sm", f"cc-{cc}", threads, regs, smem)
    assert out["value"] == blocks
    assert set(out["limiters"]) == limiters and out["limiter"] in limiters
    occupancy = solve(capsys, "occupancy", f"cc-{cc}", threads, regs, smem)
    max_warps = DEVICE[cc][0] // WARP
    assert occupancy["value"] == pytest.approx(blocks * -(-threads // WARP) / max_warps)
    assert occupancy["limiter"] == out["limiter"]


CARVEOUT_CASES = [  # (CC, threads, registers, shared memory, carve-out preference in percent)
    ("8.0", 128, 32, 20000, 30), ("8.0", 256, 32, 0, 0), ("8.0", 128, 32, 40000, 10), ("8.6", 128, 32, 9000, 50),
    ("9.0", 256, 64, 30000, 50), ("9.0", 64, 32, 1000, 5), ("7.0", 128, 32, 4000, 25), ("7.5", 128, 32, 4000, 20),
    ("12.0", 128, 32, 16000, 64), ("10.0", 256, 32, 60000, 100),
]


@pytest.mark.parametrize("cc,threads,regs,smem,carveout", CARVEOUT_CASES)
def test_a_carveout_preference_is_rounded_up_to_a_supported_size(capsys, cc, threads, regs, smem, carveout):
    blocks, limiters = header_occupancy(cc, threads, regs, smem, carveout)
    out = solve(capsys, "blocks_per_sm", f"cc-{cc}", threads, regs, smem, carveout)
    assert out["value"] == blocks and set(out["limiters"]) == limiters


def test_there_are_at_least_thirty_cases_over_every_compute_capability():
    assert len(CASES) >= 30 and {c for c, *_ in CASES} == set(DEVICE)


def test_the_issue_example_answers_with_its_limiter_and_every_limit(capsys):
    code = main(["solve", "occupancy", "--gpu", "a100", "--set", "threads_per_block=256",
                 "--set", "regs_per_thread=64", "--set", "smem_per_block=0"])
    text = capsys.readouterr().out
    assert code == 0 and text.startswith("occupancy = 50 %  (derived)")
    assert "limited by blocks_limit_regs" in text
    for limit in ("blocks_limit_warps 8 block", "blocks_limit_regs 4 block", "blocks_limit_smem 164 block",
                  "max_blocks_per_sm 32 block"):
        assert limit in text
    out = solve(capsys, "occupancy", "a100", 256, 64, 0)
    assert out["limiter"] == "blocks_limit_regs"
    blocks = out["derivation"]["inputs"][0]["inputs"][0]
    assert blocks["rule"] == "blocks_resident" and blocks["bound_by"] == ["blocks_limit_regs"]


def test_figures_printed_in_nvidia_documents(capsys, real_kb):
    # Programming Guide Table 31: an A100 block may use 163 KB, and with the 1 KB reserve it fills the 164 KB SM
    assert solve(capsys, "blocks_per_sm", "a100", 128, 32, 163 * 1024)["value"] == 1
    # chapter 'Taking an SM apart': an H100 SM holds 64 warps, 16 per partition, 2048 threads and 32 blocks
    full = solve(capsys, "resident_warps_per_sm", "h100-sxm", 1024, 32, 0)
    assert full["value"] == 64
    one_warp_blocks = solve(capsys, "blocks_per_sm", "h100-sxm", 32, 32, 0)
    assert one_warp_blocks["value"] == 32 and one_warp_blocks["limiter"] == "max_blocks_per_sm"
    assert real_kb.solve("max_warps_per_scheduler", gpu="h100-sxm").magnitude == 16


def test_inverse_questions_answer_with_intervals(real_kb):
    facts = ["threads_per_block=256", "smem_per_block=0"]
    regs = real_kb.solve("regs_per_thread", gpu="a100", facts=facts, where=["occupancy >= 0.5"])
    assert regs.intervals[0].upper == 64                      # 64 registers keep 4 blocks of 8 warps
    smem = real_kb.solve("smem_per_block", gpu="a100", facts=["threads_per_block=128", "regs_per_thread=32"],
                         where=["blocks_per_sm >= 4 block"])
    assert smem.intervals[0].upper == 41 * 1024 - 1024         # 4 x (smem + 1 KB reserve) <= 164 KB
    threads = real_kb.solve("threads_per_block", gpu="a100", facts=["regs_per_thread=32", "smem_per_block=0"],
                            where=["occupancy >= 1"])
    assert threads.magnitude == 33            # 32 blocks of one warp half fill it; 33 threads take two warps


def test_sm_120_keeps_both_documents_block_limits(real_kb):
    answer = real_kb.solve("max_blocks_per_sm", gpu="cc-12.0")
    assert answer.magnitude == 24                    # NVIDIA's cccl arch_traits (as the Programming Guide), chosen
    assert [d["value"] for d in answer.to_dict()["derivation"]["also"]] == [32]   # the Tuning Guide's, kept
    report = real_kb.audit(["cc-12.0"]).to_dict()
    checks = report["entities"][0]["checks"]
    other = next(c for c in checks if c["kind"] == "documents" and c["target"] == "max_blocks_per_sm")
    assert other["status"] == "inconsistent"
    assert (other["value"]["value"], other["implied"]["value"]) == (24, 32)
    assert other["implied"]["source"].startswith("blackwell-tuning-guide, ")
    assert other["value"]["source"].startswith("nvidia-cccl-arch-traits, arch_traits<arch_id::sm_120>(): ")


def test_every_nvidia_architecture_names_its_compute_capability(real_kb):
    expected = {"volta": 7.0, "ampere": 8.0, "hopper": 9.0, "blackwell": 10.0,
                "v100": 7.0, "a100": 8.0, "h100-sxm": 9.0, "h100-pcie": 9.0, "b200": 10.0}
    for gpu, cc in expected.items():
        assert real_kb.solve("compute_capability", gpu=gpu).magnitude == cc


CHAIN = ["threads_per_block=256", "smem_per_block=0", "loads_per_round=1", "compute_per_round=16",
         "latency_cycles=500"]


def test_a_kernels_resources_lead_to_the_scheduler_simulation(real_kb):
    answer = real_kb.solve("scheduler_utilization", gpu="h100-sxm", facts=[*CHAIN, "regs_per_thread=128"])
    # 128 registers: 2 blocks of 8 warps, 16 warps over 4 schedulers; the chapter's table gives 13 % at 4 warps
    assert round(answer.magnitude, 2) == 0.13 and answer.to_dict()["limiter"] == "blocks_limit_regs"
    warps = real_kb.solve("warps_per_scheduler", gpu="h100-sxm", facts=[*CHAIN, "regs_per_thread=128"])
    assert warps.magnitude == 4


def test_the_most_registers_that_keep_the_scheduler_busy(real_kb):
    facts = ["threads_per_block=256", "smem_per_block=0", "loads_per_round=4", "compute_per_round=64",
             "latency_cycles=500"]
    regs = real_kb.solve("regs_per_thread", gpu="h100-sxm", facts=facts, where=["scheduler_utilization >= 0.9"])
    assert regs.intervals[0].upper == 64       # 8 warps per scheduler (95 % in the chapter's table); 72 leave 7


def test_stores_take_issue_slots_in_the_simulation(real_kb):
    base = ["warps_per_scheduler=4", "loads_per_round=1", "latency_cycles=500"]
    with_stores = real_kb.solve("scheduler_utilization", facts=[*base, "compute_per_round=8", "stores_per_round=8"])
    all_compute = real_kb.solve("scheduler_utilization", facts=[*base, "compute_per_round=16"])
    without = real_kb.solve("scheduler_utilization", facts=[*base, "compute_per_round=8"])
    assert with_stores.magnitude == all_compute.magnitude > without.magnitude


CCCL = "nvidia-cccl-arch-traits"


@pytest.mark.parametrize("gpu, facts, message", [
    ("h100-sxm", ["threads_per_block=2048", "regs_per_thread=32", "smem_per_block=0"],
     f"--set: threads_per_block = 2048 thread/block exceeds the launch limit max_threads_per_block = 1024 thread/block "
     f"(cc-9.0, "
     f"{CCCL}, max_threads_per_block = 1024 (__common_arch_traits)): rule "
     "block_threads_limit, threads_per_block <= max_threads_per_block; CUDA refuses a block of more threads than the "
     "compute capability allows (cudaErrorInvalidConfiguration)"),
    ("h100-sxm", ["threads_per_block=256", "regs_per_thread=300", "smem_per_block=0"],
     f"--set: regs_per_thread = 300 register/thread exceeds the launch limit max_regs_per_thread = 255 register/thread "
     f"(cc-9.0, {CCCL}, max_registers_per_thread = 255 (__common_arch_traits)): "
     "rule thread_registers_limit, regs_per_thread <= max_regs_per_thread; no thread may use more 32-bit registers "
     "than the compute capability allows (the compiler caps a kernel there)"),
])
def test_a_launch_past_a_limit_is_an_error_naming_it(capsys, gpu, facts, message):
    code = main(["solve", "occupancy", "--gpu", gpu, *[a for f in facts for a in ("--set", f)]])
    captured = capsys.readouterr()
    assert (code, captured.out, captured.err) == (2, "", f"error: {message}\n")


def test_shared_memory_past_the_opt_in_limit_names_both_figures(capsys):
    code = main(["solve", "occupancy", "--gpu", "a100", "--set", "threads_per_block=256", "--set", "regs_per_thread=32",
                 "--set", "smem_per_block=200KiB"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --set: smem_per_block = 204800 B exceeds the launch limit "
                                        "max(smem_per_block_default_max, smem_opt_in * smem_per_block_max) = 166912 B")
    assert "smem_per_block_max = 163 KiB [cc-8.0, " in err and "smem_per_block_default_max = 48 KiB [cc-8.0, " in err
    assert "rule block_shared_memory_limit" in err


@pytest.mark.parametrize("facts, limit", [
    (["threads_per_block=256", "regs_per_thread=32", "smem_per_block=60KiB", "smem_opt_in=0"],
     "block_shared_memory_limit"),                                       # 48 KiB without the opt-in
    (["threads_per_block=1024", "regs_per_thread=72", "smem_per_block=0"], "block_registers_limit"),  # 73728 > 64 K
    (["threads_per_block=256", "regs_per_thread=32", "smem_per_block=0", "smem_opt_in=2"], "opt_in_is_a_switch"),
])
def test_the_other_launch_limits(real_kb, facts, limit):
    from hwkb.errors import OutsideLimit
    with pytest.raises(OutsideLimit) as caught:
        real_kb.context("a100", facts=facts)
    assert caught.value.rule == limit


def test_launches_at_the_limits_are_answered(real_kb):
    at = ["threads_per_block=1024", "regs_per_thread=64", "smem_per_block=163KiB"]   # 64 x 1024 = 64 K registers
    assert real_kb.solve("blocks_per_sm", gpu="a100", facts=at).magnitude == 1
    assert real_kb.solve("blocks_per_sm", gpu="a100", facts=["threads_per_block=256", "regs_per_thread=255",
                                                               "smem_per_block=0"]).magnitude == 1


def test_every_compute_capability_states_its_launch_limits(real_kb):
    opt_in = {"6.0": 48, "7.0": 96, "7.5": 64, "8.0": 163, "8.6": 99, "8.9": 99, "9.0": 227, "10.0": 227, "12.0": 99}
    for cc, kib in opt_in.items():
        facts = real_kb.context(f"cc-{cc}").facts
        assert facts["max_threads_per_block"].value == 1024 and facts["max_regs_per_thread"].value == 255
        assert facts["max_regs_per_block"].value == 65536
        assert (facts["smem_per_block_default_max"].value, facts["smem_per_block_max"].value) == (48, kib), cc
        assert all(facts[k].source for k in ("max_threads_per_block", "max_regs_per_block", "smem_per_block_max"))


def test_a_sweep_past_a_launch_limit_is_an_error(capsys):
    code = main(["solve", "occupancy", "--gpu", "h100-sxm", "--set", "threads_per_block=256", "--set",
                 "smem_per_block=0", "--sweep", "regs_per_thread=32:320:32"])
    assert code == 2 and capsys.readouterr().err.startswith(
        "error: --sweep: regs_per_thread = 320 register/thread exceeds the launch limit max_regs_per_thread = 255")


def test_the_inverse_question_headlines_the_bound(capsys):
    argv = ["solve", "regs_per_thread", "--gpu", "h100-sxm", "--set", "threads_per_block=256",
            "--set", "smem_per_block=48KiB", "--where", "occupancy >= 0.5"]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("regs_per_thread <= 64 register/thread  (derived)")
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["status"], out["value"], out["bound"]) == ("derived", 64, "upper")
    assert "regs_per_thread searched up to 255 register/thread (launch limit thread_registers_limit)" in out["notes"]


def test_an_unreachable_occupancy_is_infeasible_and_names_its_limiter(capsys):
    argv = ["solve", "regs_per_thread", "--gpu", "a100", "--set", "threads_per_block=256",
            "--set", "smem_per_block=48KiB", "--where", "occupancy >= 0.5"]
    assert main(argv) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["regs_per_thread: infeasible",
                         "  blocks_limit_smem caps occupancy at 37.5 % (the best reached, at regs_per_thread = 1 "
                         "register/thread)"]
    assert "  note: no admissible integer up to 255" in lines
    assert main([*argv, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["status"], out["value"], out["limiter"]) == ("infeasible", None, "blocks_limit_smem")
    assert out["reachable"] == {"quantity": "occupancy", "value": 0.375, "unit": "fraction", "at": 1, "side": "most"}


def test_a_grid_whose_corner_is_past_a_launch_limit_is_an_error(capsys):
    code = main(["solve", "occupancy", "--gpu", "a100", "--set", "smem_per_block=0",
                 "--sweep", "threads_per_block=256,1024", "--sweep", "regs_per_thread=32,128"])
    err = capsys.readouterr().err
    assert code == 2 and "rule block_registers_limit" in err     # 1024 threads x 128 registers: 128 K > 64 K


LIMITS = ("max_blocks_per_sm", "max_regs_per_block", "max_regs_per_thread", "max_threads_per_block",
          "max_threads_per_sm", "max_warps_per_sm", "smem_max_per_sm", "smem_per_block_default_max",
          "smem_per_block_max", "smem_reserved_per_block", "threads_per_warp")


def test_every_per_cc_limit_cites_nvidia_s_own_table_read_first_hand(real_kb):
    """The per-SM launch limits of every cc-* entity cite NVIDIA's libcu++ arch_traits (NVIDIA/cccl), read first-hand;
    what it does not state (carve-outs, granularities, sub-partitions) stays with its copies."""
    assert real_kb.model.sources["nvidia-cccl-arch-traits"].read == "first-hand"
    for eid, entity in real_kb.model.entities.items():
        if eid.startswith("cc-"):
            for key in LIMITS:
                if key in entity.facts:
                    assert entity.facts[key].source.startswith("nvidia-cccl-arch-traits, "), (eid, key)


@pytest.mark.parametrize("cc, blocks, threads, smem_kib", [("cc-7.5", 16, 1024, 64), ("cc-8.6", 16, 1536, 100),
                                                           ("cc-8.9", 24, 1536, 100), ("cc-9.0", 32, 2048, 228),
                                                           ("cc-12.0", 24, 1536, 100)])
def test_the_per_cc_limits_are_cccl_s(real_kb, cc, blocks, threads, smem_kib):
    """Figures written here from arch_traits.h (commit 004ad198) as read, each its sm_XX specialization."""
    assert real_kb.solve("max_blocks_per_sm", gpu=cc).magnitude == blocks
    assert real_kb.solve("max_threads_per_sm", gpu=cc).magnitude == threads
    assert real_kb.solve("smem_max_per_sm", gpu=cc).magnitude == pytest.approx(smem_kib)
