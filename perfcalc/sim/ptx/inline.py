"""Calls of device functions the compiler left out of line, inlined at the parsed PTX.

NVCC inlines almost every `__device__` function; what it leaves are `__noinline__` functions
and pieces of CUDA's math library (pow's core, `__internal_accurate_pow`; the slow path of trig
functions). The engine runs one instruction list per kernel, so a call is replaced by the
callee's body: its registers and labels renamed for the call site, each scalar `.param` passed
through a register (the caller's `st.param [paramN]` and the callee's `ld.param [f_param_N]`
become moves), `ret` a branch to the end of the copy (PTX ISA, "Function declarations and
definitions": call/ret with .param space arguments). Left as they are, and refused by the
engine only if a lane reaches them: calls through a register, callees with `.local` data
(a stack frame) or branch tables, and recursion deeper than MAX_DEPTH.
"""

from __future__ import annotations

import re
from dataclasses import replace

from perfcalc.sim.ptx.parse import Function, Instr, Module, parse_module

MAX_DEPTH = 4  # nested calls inlined; deeper (recursion) stays a call
_PARAM_ADDR = re.compile(r"^\[\s*([\w$]+)\s*(?:\+\s*(-?\d+))?\s*\]$")


def parse_program(ptx: str, main_file: str | None = None) -> Module:
    """parse_module, then every call of a function the module defines inlined: the form the
    executor runs."""
    module = parse_module(ptx, main_file)
    inline_calls(module)
    return module


def inline_calls(module: Module) -> None:
    """Every call of a function defined in `module` replaced by its body, in every function."""
    for fn in module.functions.values():
        for _ in range(MAX_DEPTH):
            if not _expand(fn, module):
                break


def _target(instr: Instr) -> tuple[str | None, list[str], list[str]]:
    """(callee, its argument names, its return names) of a direct call."""
    ops = [o.strip() for o in instr.operands if o.strip()]
    names = [o for o in ops if not o.startswith("(")]
    lists = [o for o in ops if o.startswith("(")]
    if not names:
        return None, [], []
    callee = names[0]
    rets: list[str] = []
    args: list[str] = []
    if lists and ops.index(lists[0]) < ops.index(callee):
        rets = _names(lists[0])
        lists = lists[1:]
    if lists:
        args = _names(lists[0])
    return callee, args, rets


def _names(group: str) -> list[str]:
    return [n.strip() for n in group.strip()[1:-1].split(",") if n.strip()]


def _inlinable(callee: Function | None) -> bool:
    return (
        callee is not None
        and not callee.is_entry
        and bool(callee.body)
        and not callee.variables
        and not callee.branch_tables
    )


def _expand(fn: Function, module: Module) -> bool:
    """One pass: every direct call of an inlinable function in `fn` replaced; True if any was."""
    sites: dict[int, tuple[Function, list[str], list[str]]] = {}  # call index -> callee, args, rets
    for i, ins in enumerate(fn.body):
        if ins.base == "call":
            name, args, rets = _target(ins)
            callee = module.functions.get(name or "")
            if callee is not None and _inlinable(callee):
                sites[i] = (callee, args, rets)
    if not sites:
        return False
    first = 1 + max((int(m) for m in re.findall(r"%inl(\d+)x", " ".join(fn.registers))), default=-1)
    tags = {at: f"inl{first + n}x" for n, at in enumerate(sites)}
    slots: dict[tuple[str, str], str] = {}  # (tag, the caller's .param name) -> its register
    body: list[Instr] = []
    where: dict[int, int] = {}  # old index -> new index
    added: dict[str, int] = {}
    last: int | None = None  # the call before this instruction
    upcoming = iter(list(sites) + [len(fn.body)])
    nxt = next(upcoming)  # the call after it
    for i, ins in enumerate(fn.body):
        where[i] = len(body)
        if i == nxt:
            callee, args, rets = sites[i]
            copy, labels = _copy_of(callee, ins, args, rets, tags[i], slots, fn)
            added.update({name: len(body) + rel for name, rel in labels.items()})
            body.extend(copy)
            last, nxt = i, next(upcoming)
            continue
        # between calls: the stores of the next call's arguments, the loads of the last one's results
        stores = {a: (tags[nxt], a) for a in sites[nxt][1]} if nxt in sites else {}
        loads = {r: (tags[last], r) for r in sites[last][2]} if last is not None else {}
        body.append(_through_register(ins, loads, stores, slots, fn))
    where[len(fn.body)] = len(body)
    fn.labels = {**{k: where[v] for k, v in fn.labels.items()}, **added}
    fn.body = body
    fn.analyses.clear()
    return True


def _param_of(operand: str) -> tuple[str, int] | None:
    m = _PARAM_ADDR.match(operand.strip())
    if m is None:
        return None
    return m.group(1), int(m.group(2) or 0)


def _through_register(
    ins: Instr,
    loads: dict[str, tuple[str, str]],
    stores: dict[str, tuple[str, str]],
    slots: dict[tuple[str, str], str],
    fn: Function,
) -> Instr:
    """`ld.param.T d, [p+k]` of a .param in `loads` as `mov.T d, %slot`, `st.param.T [p+k], v` of
    one in `stores` as `mov.T %slot, v`; the slot is the register the call site's .param
    (tag, name) gets at offset k. Any other instruction as it is."""
    kind = ins.parts[:2]
    if len(ins.operands) != 2 or kind not in (("ld", "param"), ("st", "param")):
        return ins
    found = _param_of(ins.operands[1] if kind[0] == "ld" else ins.operands[0])
    table = loads if kind[0] == "ld" else stores
    if found is None or found[0] not in table:
        return ins
    t = ins.parts[-1]
    key = (table[found[0]][0], f"{table[found[0]][1]}+{found[1]}")
    if key not in slots:
        slots[key] = f"%{key[0]}__p{len(slots)}"  # no renamed callee register has "__"
        fn.registers[slots[key]] = t
    reg = slots[key]
    operands = (ins.operands[0], reg) if kind[0] == "ld" else (reg, ins.operands[1])
    return replace(ins, opcode=f"mov.{t}", operands=operands)


def _copy_of(
    callee: Function,
    call: Instr,
    args: list[str],
    rets: list[str],
    tag: str,
    slots: dict[tuple[str, str], str],
    fn: Function,
) -> tuple[list[Instr], dict[str, int]]:
    """The callee's body for one call site (with its labels, relative to the copy): registers
    and labels renamed, parameters and the return value through the call site's registers,
    `ret` a branch past the copy."""
    loads = {p.name: (tag, a) for p, a in zip(callee.params, args, strict=False)}
    stores = {f"func_retval{k}": (tag, r) for k, r in enumerate(rets)}
    for prefix, t in callee.registers.items():
        fn.registers[_renamed(prefix, tag)] = t
    prefixes = sorted(callee.registers, key=len, reverse=True)
    regs = re.compile("(" + "|".join(map(re.escape, prefixes)) + r")(\d*)(?![\w$])") if prefixes else None
    labels = {name: f"$inl{tag}{name.lstrip('$')}" for name in callee.labels}
    names = re.compile(r"(?<![\w$])(" + "|".join(map(re.escape, labels)) + r")(?![\w$])") if labels else None
    end = f"$inl{tag}end"

    def rename(text: str) -> str:
        if regs is not None:
            text = regs.sub(lambda m: _renamed(m.group(1), tag) + m.group(2), text)
        return names.sub(lambda m: labels[m.group(1)], text) if names is not None else text

    out: list[Instr] = []
    operands: tuple[str, ...]
    for ins in callee.body:
        if ins.base == "ret":  # a ret may be divergent: a branch, not bra.uni
            moved, operands = replace(ins, opcode="bra"), (end,)
        else:
            moved = _through_register(ins, loads, stores, slots, fn)
            operands = tuple(o if o in slots.values() else rename(o) for o in moved.operands)
        out.append(
            replace(
                moved,
                operands=operands,
                pred=rename(ins.pred) if ins.pred else ins.pred,
                line=ins.line or call.line,
                inlined_at=ins.inlined_at if ins.line else call.line,
            )
        )
    placed = {labels[name]: index for name, index in callee.labels.items()}
    placed[end] = len(out)
    return out, placed


def _renamed(prefix: str, tag: str) -> str:
    return "%" + tag + prefix.lstrip("%")
