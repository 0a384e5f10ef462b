"""Training data: canonical JSONL records -> token ids and loss masks -> length-sorted, padded or packed batches.

    ds = load_dataset("data/default/train.jsonl", tokenizer, max_length=1024)   # TokenDataset, with ds.stats
    for batch in iterate_batches(ds, batch_size=4, seed=0):                     # endless, deterministic
        ...

Each record goes through `nanoagent.render.render` (the one renderer: every assistant turn is supervised, never
system/user/tool text). Problems are decided here, before any training step: a malformed record raises
`DataError` naming file:line and field (or is skipped and counted with on_bad_record="skip"); a record longer than
max_length is skipped and counted (or truncated, or an error); a record with no supervised token is skipped and
counted; an empty result is an error.

Batches (a `Batch`: inputs, targets, loss mask, and for packed rows each record's span) are deterministic in
(seed, batch number), so a resumed run sees exactly the data order it would have seen, and each data-parallel
rank takes its own rows of the same global batch. Padding mode sorts records by token length and groups
neighbours (little padding), then shuffles the batch order per epoch. Packing mode fills rows of max_length with
whole records (first-fit, longest first) and records where each starts and ends; the loss lets each record attend
only to itself, causally (nanoagent/packed_attention.py). With RoPE, attention inside a record depends only on
relative positions, so a packed record scores the same as when padded alone.

Left out: streaming datasets larger than memory, and splitting records across rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nanoagent.record import Record, RecordError, jsonl_lines
from nanoagent.render import DEFAULT_FORMAT, IM_END, PromptFormat, render
from nanoagent.toolcall import CLOSE, OPEN


class DataError(ValueError):
    pass


@dataclass
class TokenDataset:
    ids: list[np.ndarray]
    masks: list[np.ndarray]
    stats: dict = field(default_factory=dict)
    turn_end: int | None = None  # the id that ends a chat turn (<|im_end|>), for batches that share a first turn

    def __len__(self):
        return len(self.ids)

    @property
    def lengths(self) -> np.ndarray:
        return np.array([len(x) for x in self.ids])


@dataclass
class Batch:
    inputs: np.ndarray  # (B, L) int32
    targets: np.ndarray  # (B, L) int32
    mask: np.ndarray  # (B, L) float32 loss weight: 0 unsupervised, 1 supervised (decision/count weight on a decision)
    spans: tuple | None = None  # packing: per row, each record's (start, end), padding last; None: plain causal
    n_records: int = 0
    lengths: np.ndarray | None = None  # (B,) real (non-padding) input tokens per row
    prefix: np.ndarray | None = None  # (P,) ids every row continues, run once (share_prefix); rows hold the rest
    prefix_grad: bool = True  # whether the gradient flows through the prefix's pass (False: forward only)

    @property
    def n_input_tokens(self) -> int:
        shared = 0 if self.prefix is None else len(self.prefix)  # run once for the whole batch
        return shared + (int(self.lengths.sum()) if self.lengths is not None else int(self.inputs.size))

    @property
    def n_tokens(self) -> int:
        return int((self.mask > 0).sum())

    def shard(self, rank: int, world: int) -> "Batch":
        """This rank's rows of the global batch (rows rank, rank+world, ...)."""
        if world == 1:
            return self
        sl = slice(rank, None, world)
        return Batch(self.inputs[sl], self.targets[sl], self.mask[sl],
                     None if self.spans is None else self.spans[sl], self.n_records,
                     None if self.lengths is None else self.lengths[sl], self.prefix, self.prefix_grad)


def read_records(path: str | Path, on_bad_record: str = "error") -> tuple[list[Record], dict]:
    path = Path(path)
    if not path.is_file():
        raise DataError(f"dataset file {path} does not exist")
    records, bad = [], []
    try:
        lines = list(jsonl_lines(path))
    except RecordError as e:
        raise DataError(str(e)) from None
    for lineno, line in lines:
        if not line.strip():
            continue
        try:
            records.append(Record.from_dict(json.loads(line)))
        except (json.JSONDecodeError, RecordError) as e:
            where = f"{path}:{lineno}"
            if on_bad_record == "error":
                raise DataError(f"{where}: malformed record ({e}). Fix or drop the line, or rerun with "
                                "--on-bad-record skip to skip and count such records.") from None
            bad.append(f"{where}: {e}")
    return records, {"bad_records": len(bad), "bad_examples": bad[:5]}


def decision_weights(mask, weight: float, count_at=(), count_weight: float = 1.0, arg_end_at=(),
                     arg_end_weight: float = 1.0) -> np.ndarray:
    """The 0/1 loss mask as float weights, with `weight` on the first token of every supervised span,
    `count_weight` on the supervised ones of the positions `count_at` (the tokens after each `</tool_call>`:
    `after_sequence(ids, close_ids)`) and `arg_end_weight` on those of `arg_end_at` (`argument_ends`).

    The first token is where the model chooses between opening a `<tool_call>` and answering in text; the token
    after a closing tag is where it chooses between another call and the end of the reply, the decision a model
    that writes three calls where two were asked gets wrong. With a weight above 1 the choice gets that many times
    the gradient of an ordinary token. (No reply starts right after a closing tag, so the two never meet.)"""
    out = np.asarray(mask, dtype=np.float32)
    if weight != 1.0:
        starts = np.flatnonzero(np.diff(np.concatenate([[0.0], out])) > 0)
        out[starts] = weight
    for at, w in ((count_at, count_weight), (arg_end_at, arg_end_weight)):
        if w != 1.0 and len(at):
            at = np.asarray(at, dtype=np.int64)
            out[at[out[at] > 0]] = w
    return out


def token_pieces(tokenizer) -> list[str]:
    """Each vocabulary id's own text (`tokenizer.decode([id])`), to read call JSON token by token."""
    return [tokenizer.decode([i]) for i in range(len(tokenizer))]


def argument_ends(ids, mask, pieces: list[str]) -> list[int]:
    """Positions of the supervised tokens holding the ',' or '}' right after a top-level argument of a call
    (in `{"name": "f", "arguments": {"a": 1, "b": 2}}`, the tokens holding ', "b"' and the closing '}}'): where the
    model chooses between giving another argument and closing the call. Each supervised run is read as text from
    every `<tool_call>` on, as JSON: strings and nested values skipped, so commas inside them are not choices."""
    out = []
    armed, depth, in_str, esc, tail = False, 0, False, False, ""
    for i, tid in enumerate(ids):
        if not mask[i]:  # a run ends: the next assistant turn starts afresh
            armed, depth, in_str, esc, tail = False, 0, False, False, ""
            continue
        marked = False
        for ch in pieces[tid]:
            if depth == 0:
                if armed and ch == "{":
                    depth = 1
                tail = (tail + ch)[-len(OPEN):]
                armed = armed or tail == OPEN
            elif in_str:
                esc, in_str = (False, True) if esc else (ch == "\\", ch != '"')
            elif ch == '"':
                in_str = True
            elif ch in "{[":
                depth += 1
            elif ch == ",":
                marked = marked or depth == 2
            elif ch in "}]":
                marked = marked or depth == 2  # the arguments object closes
                depth -= 1
                if depth == 0:  # the call's object closed: wait for the next <tool_call>
                    armed, tail = False, ""
        if marked:
            out.append(i)
    return out


def after_sequence(ids, seq) -> list[int]:
    """Positions of the tokens right after each occurrence of the token sequence `seq` in `ids`."""
    ids, seq = np.asarray(ids), np.asarray(seq)
    n = len(seq)
    if n == 0 or len(ids) < n:
        return []
    windows = np.lib.stride_tricks.sliding_window_view(ids, n)
    after = np.flatnonzero((windows == seq).all(axis=1)) + n
    return after[after < len(ids)].tolist()


def tokenize(records: list[Record], tokenizer, max_length: int, on_too_long: str = "skip",
             source: str = "dataset", decision_weight: float = 1.0, count_weight: float = 1.0,
             fmt: PromptFormat = DEFAULT_FORMAT, arg_end_weight: float = 1.0) -> TokenDataset:
    ids_out, masks_out = [], []
    close_ids = tokenizer.encode(CLOSE, add_special_tokens=False) if count_weight != 1.0 else []
    pieces = token_pieces(tokenizer) if arg_end_weight != 1.0 else None
    count_marked = arg_end_marked = 0
    too_long, truncated, unsupervised, longest = 0, 0, 0, 0
    for i, rec in enumerate(records):
        ids, mask = render(rec, tokenizer, fmt)
        longest = max(longest, len(ids))
        if len(ids) > max_length:
            if on_too_long == "error":
                raise DataError(f"{source} record {i} has {len(ids)} tokens, more than max_length={max_length}. "
                                "Raise --max-length, or use --on-too-long skip|truncate.")
            if on_too_long == "skip":
                too_long += 1
                continue
            ids, mask = ids[:max_length], mask[:max_length]
            truncated += 1
        if sum(mask[1:]) == 0:
            unsupervised += 1
            continue
        ids_out.append(np.asarray(ids, dtype=np.int32))
        after = after_sequence(ids, close_ids) if close_ids else []
        ends = argument_ends(ids, mask, pieces) if pieces else []
        masks_out.append(decision_weights(mask, decision_weight, after, count_weight, ends, arg_end_weight))
        count_marked += int((masks_out[-1][after] > 0).sum()) if after else 0
        arg_end_marked += len(ends)
    stats = {"records": len(records), "kept": len(ids_out), "skipped_too_long": too_long,
             "truncated": truncated, "skipped_unsupervised": unsupervised, "longest_tokens": longest,
             "tokens": int(sum(len(x) for x in ids_out)),
             "supervised_tokens": int(sum((m[1:] > 0).sum() for m in masks_out))}
    if close_ids:
        stats["count_weighted_tokens"] = count_marked
    if pieces:
        stats["arg_end_weighted_tokens"] = arg_end_marked
    if not ids_out:
        raise DataError(f"{source}: no usable records ({stats}). Check the file, or raise --max-length.")
    end = tokenizer.encode(IM_END, add_special_tokens=False)
    return TokenDataset(ids_out, masks_out, stats, end[0] if len(end) == 1 else None)


def load_dataset(path, tokenizer, max_length: int, on_too_long: str = "skip",
                 on_bad_record: str = "error", decision_weight: float = 1.0, count_weight: float = 1.0,
                 fmt: PromptFormat = DEFAULT_FORMAT, arg_end_weight: float = 1.0) -> TokenDataset:
    records, read_stats = read_records(path, on_bad_record)
    if not records:
        raise DataError(f"dataset file {path} has no records")
    ds = tokenize(records, tokenizer, max_length, on_too_long, source=str(path), decision_weight=decision_weight,
                  count_weight=count_weight, fmt=fmt, arg_end_weight=arg_end_weight)
    ds.stats.update(read_stats, records=len(records) + read_stats["bad_records"])
    return ds


MIN_PREFIX = 32  # a shorter common start is not worth a pass of its own


def common_prefix(ds: TokenDataset, idx) -> int:
    """How many leading ids the records `idx` share, up to the first position whose next token is supervised (the
    prefix's own outputs are never scored); 0 under MIN_PREFIX or for one record."""
    if len(idx) < 2:
        return 0
    n = min(int(np.flatnonzero(ds.masks[i][1:] > 0)[0]) for i in idx)  # position predicting the first target
    first = ds.ids[idx[0]]
    for i in idx[1:]:
        differ = np.flatnonzero(ds.ids[i][:n] != first[:n])
        n = int(differ[0]) if differ.size else n
    return n if n >= MIN_PREFIX else 0


def _pad_batch(ds: TokenDataset, idx, share_prefix: bool = False) -> Batch:
    p = common_prefix(ds, idx) if share_prefix else 0
    width = max(len(ds.ids[i]) for i in idx) - 1 - p
    b = len(idx)
    inputs = np.zeros((b, width), np.int32)
    targets = np.zeros((b, width), np.int32)
    mask = np.zeros((b, width), np.float32)
    for r, i in enumerate(idx):
        ids, m = ds.ids[i], ds.masks[i]
        n = len(ids) - 1 - p
        inputs[r, :n], targets[r, :n], mask[r, :n] = ids[p:-1], ids[p + 1:], m[p + 1:]
    lengths = np.array([len(ds.ids[i]) - 1 - p for i in idx], np.int64)
    return Batch(inputs, targets, mask, None, len(idx), lengths, ds.ids[idx[0]][:p].copy() if p else None)


def _pack_rows(ds: TokenDataset, idx, width: int) -> list[list[int]]:
    rows, free = [], []
    for i in sorted(idx, key=lambda i: -len(ds.ids[i])):
        n = len(ds.ids[i]) - 1
        for r, space in enumerate(free):
            if n <= space:
                rows[r].append(i)
                free[r] -= n
                break
        else:
            rows.append([i])
            free.append(width - n)
    return rows


def _packed_batch(ds: TokenDataset, rows: list[list[int]], width: int) -> Batch:
    b = len(rows)
    used = max(sum(len(ds.ids[i]) - 1 for i in row) for row in rows)
    inputs = np.zeros((b, used), np.int32)
    targets = np.zeros((b, used), np.int32)
    mask = np.zeros((b, used), np.float32)
    spans = []
    for r, row in enumerate(rows):
        pos, row_spans = 0, []
        for i in row:
            ids, m = ds.ids[i], ds.masks[i]
            n = len(ids) - 1
            inputs[r, pos:pos + n], targets[r, pos:pos + n], mask[r, pos:pos + n] = ids[:-1], ids[1:], m[1:]
            row_spans.append((pos, pos + n))
            pos += n
        if pos < used:
            row_spans.append((pos, used))  # the row's padding: one more span, never supervised
        spans.append(tuple(row_spans))
    lengths = np.array([sum(len(ds.ids[i]) - 1 for i in row) for row in rows], np.int64)
    return Batch(inputs, targets, mask, tuple(spans), sum(len(r) for r in rows), lengths)


def first_turn_length(ds: TokenDataset, i: int, end_id: int) -> int:
    """How many ids record i has up to its first `end_id` (the end of its first turn: a system turn with tools)."""
    at = np.flatnonzero(ds.ids[i] == end_id)
    return int(at[0]) + 1 if at.size else 0


def first_turn_key(ds: TokenDataset, i: int, end_id: int) -> bytes:
    """The ids of record i's first turn, as bytes (records that open alike share the key)."""
    return ds.ids[i][:first_turn_length(ds, i, end_id)].tobytes()


def shared_first_turn_plan(ds: TokenDataset, batch_size: int, rng, end_id: int, drop_last: bool) -> list[list[int]]:
    """Batches of records that open with the same first turn (a specialist's system prompt and tool list), so each
    batch runs that turn once: records grouped by their first turn, sorted by length within a group (ties in random
    order) so that a batch pads little, cut into batches of `batch_size`, the batch order shuffled. A group's short
    tail is a batch of its own (left out this epoch with `drop_last`), never mixed with other records: a batch of
    long rows that share nothing would run every row whole (the memory check counts a shared batch's own tokens).
    Groups smaller than a batch are batched together, by length."""
    groups: dict[bytes, list[int]] = {}
    for i in rng.permutation(len(ds)).tolist():
        groups.setdefault(first_turn_key(ds, i, end_id), []).append(i)
    batches, rest = [], []
    for members in groups.values():
        if len(members) < batch_size:  # too few to fill a batch: batched with the other small groups
            rest += members
            continue
        members.sort(key=lambda i: len(ds.ids[i]))  # stable: equal lengths keep the shuffled order
        full = len(members) - len(members) % batch_size
        batches += [members[k:k + batch_size] for k in range(0, full, batch_size)]
        if full < len(members) and not drop_last:  # the tail keeps its shared turn, in a shorter batch
            batches.append(members[full:])
    rest.sort(key=lambda i: len(ds.ids[i]))
    batches += [rest[k:k + batch_size] for k in range(0, len(rest), batch_size)
                if not drop_last or k + batch_size <= len(rest)]
    return [batches[j] for j in rng.permutation(len(batches))]


def epoch_plan(ds: TokenDataset, batch_size: int, seed: int, epoch: int, pack: bool = False,
               max_length: int = 0, drop_last: bool = True, share_prefix: int | None = None) -> list[list[int]]:
    """The record indices of every batch of one epoch, a pure function of (seed, epoch).

    Padding: set aside `len % batch_size` random records for this epoch (`drop_last`; a different few each epoch,
    so no record is always left out), sort the rest by token length, cut into batches of `batch_size`, shuffle
    the batch order. Packing: shuffle, take groups of records that fill `batch_size` rows of max_length.
    `share_prefix` (the token id that ends a turn): padded batches of records that share their first turn
    (shared_first_turn_plan), which make_batch then runs once per batch.
    """
    rng = np.random.default_rng([seed, epoch])
    if share_prefix is not None and not pack:
        return shared_first_turn_plan(ds, batch_size, rng, share_prefix, drop_last)
    if not pack:
        keep = np.arange(len(ds))
        extra = len(ds) % batch_size
        if drop_last and extra and len(ds) > batch_size:
            keep = np.sort(rng.permutation(len(ds))[:len(ds) - extra])
        order = keep[np.argsort(ds.lengths[keep], kind="stable")]
        batches = [order[i:i + batch_size].tolist() for i in range(0, len(order), batch_size)]
        return [batches[j] for j in rng.permutation(len(batches))]
    order = rng.permutation(len(ds)).tolist()
    plan, current = [], []
    for i in order:
        trial = current + [i]
        if len(_pack_rows(ds, trial, max_length - 1)) > batch_size:
            plan.append(current)
            current = [i]
        else:
            current = trial
    if current:
        plan.append(current)
    return plan


def make_batch(ds: TokenDataset, idx: list[int], batch_size: int, pack: bool, max_length: int,
               share_prefix: bool = False, prefix_grad: bool = True) -> Batch:
    if not pack:
        batch = _pad_batch(ds, idx, share_prefix)
        batch.prefix_grad = prefix_grad
        return batch
    batch = _packed_batch(ds, _pack_rows(ds, idx, max_length - 1), max_length - 1)
    missing = batch_size - batch.inputs.shape[0]
    if missing > 0:  # keep the row count fixed so each data-parallel rank has rows: empty rows are all padding
        L = batch.inputs.shape[1]
        batch.inputs = np.concatenate([batch.inputs, np.zeros((missing, L), np.int32)])
        batch.targets = np.concatenate([batch.targets, np.zeros((missing, L), np.int32)])
        batch.mask = np.concatenate([batch.mask, np.zeros((missing, L), np.float32)])
        batch.spans = batch.spans + ((((0, L),),) * missing)
        batch.lengths = np.concatenate([batch.lengths, np.zeros(missing, np.int64)])
    return batch


def iterate_batches(ds: TokenDataset, batch_size: int, seed: int = 0, start: int = 0, pack: bool = False,
                    max_length: int = 0, rank: int = 0, world: int = 1, loop: bool = True,
                    share_prefix: int | None = None, prefix_grad: bool = True):
    """Yield this rank's shard of global batches number `start`, `start`+1, ... (forever if `loop`).

    Training (`loop`) uses full batches only; one pass (`loop=False`, evaluation) also yields the short tail.
    `share_prefix`: the id that ends a turn; padded batches then group records by their first turn and run the
    part they share once (Batch.prefix); `prefix_grad` False runs that part forward only."""
    if batch_size % world:
        raise ValueError(f"batch_size {batch_size} must be divisible by the number of processes {world}")
    epoch, k = 0, 0
    while True:
        plan = epoch_plan(ds, batch_size, seed, epoch, pack, max_length, drop_last=loop, share_prefix=share_prefix)
        for idx in plan:
            if not pack and len(idx) < world:
                continue  # (evaluation only) a tail too small to give every process a row
            if k >= start:
                yield make_batch(ds, idx, batch_size, pack, max_length, share_prefix is not None,
                                 prefix_grad).shard(rank, world)
            k += 1
        if not loop:
            return
        epoch += 1


def unfinished(folder: Path) -> None:
    """A DataError for a data-build folder without its stats.json, or a build's staging folder (`*.partial`): the
    build that wrote it did not finish."""
    if folder.name.endswith(".partial"):
        raise DataError(f"{folder} is the staging folder of a data build that did not finish: build the data again "
                        "(its command publishes the folder without .partial when it completes)")
    if (folder / "recipe.resolved.yaml").is_file() and not (folder / "stats.json").is_file():
        raise DataError(f"{folder} is an unfinished data build (no stats.json): build it again with "
                        "`python -m data_recipes.build`")
