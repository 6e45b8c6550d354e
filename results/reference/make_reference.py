#!/usr/bin/env python3
"""Writes the published tables of the seed reports as moesweep JSONL records.

Every number below is copied from the seed named in its `source`; nothing is
derived except what the note on that table says (seconds = tokens / speed,
N_KV before the prompt = published N_KV - PP - TG). Each record has one sample
per phase (the published figure), so `moesweep compare` shows ratios against
these tables but marks them "untestable": there are no repetitions to test.

Run from anywhere: python3 results/reference/make_reference.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

EPYC = ("AMD EPYC 9175F (Zen 5, 16 cores, SMT off, 512 MB L3), 768 GB DDR5-6400 "
        "12 channels, 1 NUMA node, Ubuntu 24.04")
EPYC_GPU = EPYC + "; GPU NVIDIA RTX PRO 6000 Blackwell Max-Q 96 GB"
SEED_JA_L3 = "shared/seeds/000_8bfe12c23c39325e.txt"
SEED_JA_KIMI = "shared/seeds/001_337d565e047bd51a.txt"
SEED_JA_SCOUT = "shared/seeds/002_2bd06c019cb01ac2.txt"


def phase(speed, tokens):
    """One published sample; seconds only when the token count was published."""
    if speed is None:
        return {"samples_s": [], "samples_ts": [], "counters": {}}
    seconds = [round(tokens / speed, 3)] if tokens else []
    return {"samples_s": seconds, "samples_ts": [speed], "counters": {}}


def record(run_id, index, p, pp_speed, tg_speed, reference, pp_seconds=None, tg_seconds=None):
    pp_phase = phase(pp_speed, p["pp"])
    tg_phase = phase(tg_speed, p["tg"])
    if pp_seconds is not None:
        pp_phase["samples_s"] = [pp_seconds]
    if tg_seconds is not None:
        tg_phase["samples_s"] = [tg_seconds]
    t_pp = pp_phase["samples_s"][0] if pp_phase["samples_s"] else 0
    t_tg = tg_phase["samples_s"][0] if tg_phase["samples_s"] else 0
    # Same key order as record_to_json: sweep-bench's keys first, then ours.
    return {
        "n_kv_max": p["n_ctx"], "n_batch": p["n_batch"], "n_ubatch": p["n_ubatch"],
        "flash_attn": 1 if p["fa"] else 0, "n_gpu_layers": p.get("ngl", 0),
        "n_threads": p["threads"], "n_threads_batch": p.get("threads_batch", p["threads"]),
        "pp": p["pp"], "tg": p["tg"], "n_kv": p["n_kv"],
        "t_pp": t_pp, "speed_pp": pp_speed or 0, "t_tg": t_tg, "speed_tg": tg_speed or 0,
        "run_id": run_id, "point": index, "ok": True,
        "model": p["model"], "model_path": p.get("model_path", ""), "model_type": p["quant"],
        "quant": p["quant"], "n_ctx": p["n_ctx"], "type_k": p["type_k"], "type_v": p["type_v"],
        "use_mmap": p.get("mmap", True), "use_mlock": p.get("mlock", False),
        "tensor_overrides": p.get("ot", ""), "cpu_mask": "", "cpu_strict": False, "poll": 50,
        "numa": "disabled", "pp_phase": pp_phase, "tg_phase": tg_phase,
        "extra": {"reference": reference},
    }


def write(name, records):
    with open(os.path.join(HERE, name), "w") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


KIMI_LLAMA_SERVER = dict(model="kimi-k2.5", quant="Q4_K_S", n_batch=2048, n_ubatch=512,
                         type_k="q8_0", type_v="q8_0", fa=True)


def threads_table():
    ref = {"source": SEED_JA_KIMI + " (same figures in " + SEED_JA_L3 + ")",
           "table": "スレッド最適化（ctx=8k）: threads vs PP/TG, Kimi-K2.5 Q4_K_S",
           "hardware": EPYC, "engine": "llama.cpp server (Podman, GGML_NATIVE Zen 5 build)",
           "settings": "--cache-type-k q8_0 --cache-type-v q8_0 --flash-attn on "
                       "--threads N --threads-batch N --batch-size 2048 --ubatch-size 512",
           "note": "speeds from server logs (prompt eval / eval time); prompt and generation "
                   "lengths and depth not published: pp = tg = n_kv = 0 here; "
                   "compare with --on threads"}
    rows = [(16, 24.43, 12.94), (14, 21.32, 12.50), (13, 21.58, 11.67), (12, 14.58, 11.86)]
    out = []
    for i, (threads, pp, tg) in enumerate(rows):
        p = dict(KIMI_LLAMA_SERVER, n_ctx=8192, threads=threads, pp=0, tg=0, n_kv=0)
        out.append(record("ref-epyc9175f-kimi-k2.5-q4_k_s-threads", i, p, pp, tg, ref))
    write("epyc9175f-kimi-k2.5-q4_k_s-threads.jsonl", out)


def context_128k():
    ref = {"source": SEED_JA_L3, "table": "128Kコンテキストでの長時間安定性（th=13）",
           "hardware": EPYC, "engine": "llama.cpp server (Podman, GGML_NATIVE Zen 5 build)",
           "settings": "--ctx-size 131072 --threads 13 --threads-batch 13 -ctk q8_0 -ctv q8_0 "
                       "--flash-attn on -b 2048 -ub 512",
           "note": "only the decode speed (9.34 tok/s) is published; depth not published"}
    p = dict(KIMI_LLAMA_SERVER, n_ctx=131072, threads=13, pp=0, tg=0, n_kv=0)
    write("epyc9175f-kimi-k2.5-q4_k_s-128k.jsonl",
          [record("ref-epyc9175f-kimi-k2.5-q4_k_s-128k", 0, p, None, 9.34, ref)])


def server_16k():
    ref = {"source": SEED_JA_KIMI, "table": "Q4_K_S基本ベンチマーク（th=14, ctx=16k）",
           "hardware": EPYC, "engine": "llama.cpp server",
           "settings": "--threads 14, ctx 16384, -ctk q8_0 -ctv q8_0 --flash-attn on",
           "note": "two chat requests; seconds = tokens / speed; depth before each prompt "
                   "not published (n_kv = 0)"}
    rows = [(823, 22.24, 438, 10.27), (1335, 19.98, 1012, 8.76)]
    out = []
    for i, (pp_tok, pp, tg_tok, tg) in enumerate(rows):
        p = dict(KIMI_LLAMA_SERVER, n_ctx=16384, threads=14, pp=pp_tok, tg=tg_tok, n_kv=0)
        out.append(record("ref-epyc9175f-kimi-k2.5-q4_k_s-server-16k", i, p, pp, tg, ref))
    write("epyc9175f-kimi-k2.5-q4_k_s-server-16k.jsonl", out)


def long_context_q4km():
    ref = {"source": SEED_JA_KIMI, "table": "Q4_K_M Long Context実測（th=13, ctx=32k）",
           "hardware": EPYC, "engine": "llama.cpp server",
           "settings": "Kimi-K2.5 Q4_K_M (578.57 GiB), --threads 13, ctx 32768, prompt cache",
           "note": "four requests; the first is a 16,148-token prefill from an empty cache "
                   "(about 44 minutes); later ones reuse the cache (LCP similarity in "
                   "extra.reference.lcp), their depth is not published (n_kv = 0)"}
    rows = [(16148, 6.15, 333, 2.44, None), (356, 3.40, 2048, 2.26, 0.978),
            (12, 3.11, 1024, 2.15, 0.999), (1050, 3.21, 1024, 2.07, 0.939)]
    out = []
    for i, (pp_tok, pp, tg_tok, tg, lcp) in enumerate(rows):
        p = dict(KIMI_LLAMA_SERVER, quant="Q4_K_M", n_ctx=32768, threads=13, pp=pp_tok,
                 tg=tg_tok, n_kv=0)
        r = dict(ref, lcp=lcp) if lcp else ref
        out.append(record("ref-epyc9175f-kimi-k2.5-q4_k_m-long-context", i, p, pp, tg, r))
    write("epyc9175f-kimi-k2.5-q4_k_m-long-context.jsonl", out)


def ik_llama_hybrid():
    base = dict(model="kimi-k2.5", quant="Q4_K_S", n_ctx=131072, n_batch=2048, n_ubatch=512,
                type_k="f16", type_v="f16", fa=False, threads=13, threads_batch=26, ngl=999,
                ot="exps=CPU", mmap=False)
    common = {"source": SEED_JA_KIMI, "hardware": EPYC_GPU,
              "engine": "ik_llama.cpp server (CUDA build, SM 120)",
              "settings": "--no-mmap -c 131072 --threads 13 --threads-batch 26 -b 2048 -ub 512 "
                          "-ngl 999 -ot exps=CPU -ctk f16 -ctv f16 --merge-qkv -mla 3 -amb 512",
              "note": "experts on CPU, attention on GPU. Published N_KV is the cache after "
                      "decode; n_kv here is the depth before the prompt = N_KV - PP - TG "
                      "(published N_KV in extra.reference.n_kv_published). flash_attn not "
                      "stated (ik_llama -mla 3 implies its own attention path)"}
    tables = [
        ("ik_llama-initial", "ベンチマーク結果（初期）", [
            (5264, 744, 6007, 59.596, 88.33, 37.815, 19.67),
            (765, 259, 6287, 13.277, 57.62, 13.164, 19.68),
            (279, 1024, 7331, 6.243, 44.69, 52.452, 19.52),
            (1037, 1024, 8368, 16.772, 61.83, 51.793, 19.77),
            (1041, 310, 8695, 16.637, 62.57, 16.124, 19.23)]),
        ("ik_llama-later", "後続実測（Prompt Cache / テンプレート最適化後）", [
            (5330, 401, 5730, 41.298, 129.06, 20.458, 19.60),
            (416, 2241, 7986, 8.363, 49.75, 114.552, 19.56),
            (2255, 919, 8919, 20.631, 109.30, 48.056, 19.12)]),
    ]
    for suffix, title, rows in tables:
        run_id = "ref-epyc9175f-rtxpro6000-kimi-k2.5-q4_k_s-" + suffix
        out = []
        for i, (pp_tok, tg_tok, n_kv_after, t_pp, s_pp, t_tg, s_tg) in enumerate(rows):
            p = dict(base, pp=pp_tok, tg=tg_tok, n_kv=max(0, n_kv_after - pp_tok - tg_tok))
            ref = dict(common, table=title, n_kv_published=n_kv_after)
            out.append(record(run_id, i, p, s_pp, s_tg, ref, t_pp, t_tg))
        write("epyc9175f-rtxpro6000-kimi-k2.5-q4_k_s-" + suffix + ".jsonl", out)


def scout_q6k():
    ref = {"source": SEED_JA_SCOUT, "table": "構成A: CPU Q6_K（th=16, ctx=8K）",
           "hardware": EPYC, "engine": "llama.cpp server",
           "settings": "Llama-4-Scout-17B-16E Q6_K (3-part GGUF), --threads 16 --threads-batch 16 "
                       "--batch-size 2048 --ubatch-size 512 --mlock --ctx-size 8192 "
                       "--flash-attn on",
           "note": "published as ranges: PP about 40 tok/s for 2.5k-5k token prompts, TG "
                   "16.3-17.5 tok/s; the single sample here is PP 40 and the TG midpoint "
                   "16.9 (range in extra.reference.tg_range); lengths and depth not published",
           "tg_range": [16.3, 17.5]}
    p = dict(model="llama-4-scout", quant="Q6_K", n_ctx=8192, n_batch=2048, n_ubatch=512,
             type_k="f16", type_v="f16", fa=True, threads=16, pp=0, tg=0, n_kv=0, mlock=True)
    write("epyc9175f-llama-4-scout-q6_k.jsonl",
          [record("ref-epyc9175f-llama-4-scout-q6_k", 0, p, 40.0, 16.9, ref)])


if __name__ == "__main__":
    threads_table()
    context_128k()
    server_16k()
    long_context_q4km()
    ik_llama_hybrid()
    scout_q6k()
