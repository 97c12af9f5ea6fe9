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
    calls = [
        i
        for i, ins in enumerate(fn.body)
        if ins.base == "call" and _inlinable(module.functions.get(_target(ins)[0] or ""))
    ]
    if not calls:
        return False
    first_site = 1 + max((int(m) for m in re.findall(r"%inl(\d+)x", " ".join(fn.registers))), default=-1)
    sites: list[tuple[str, list[str], list[str], dict[tuple[str, int], str]]] = []  # tag, args, rets, slots
    for n, at in enumerate(calls):
        _, args, rets = _target(fn.body[at])
        sites.append((f"inl{first_site + n}x", args, rets, {}))
    body: list[Instr] = []
    where: dict[int, int] = {}  # old index -> new index
    added: dict[str, int] = {}
    n = 0  # the next call
    for i, ins in enumerate(fn.body):
        where[i] = len(body)
        if n < len(calls) and i == calls[n]:
            tag, args, rets, slots = sites[n]
            callee = module.functions[_target(ins)[0] or ""]
            copy, labels = _copy_of(callee, ins, args, rets, tag, slots, fn)
            added.update({name: len(body) + rel for name, rel in labels.items()})
            body.extend(copy)
            n += 1
            continue
        if n < len(calls):  # between calls: stores of the next call's arguments ...
            tag, args, _, slots = sites[n]
            ins = _store_to_slot(ins, args, tag, slots, fn)
        if n > 0:  # ... and loads of the last call's results
            tag, _, rets, slots = sites[n - 1]
            ins = _load_from_slot(ins, rets, tag, slots, fn)
        body.append(ins)
    where[len(fn.body)] = len(body)
    fn.labels = {**{k: where[v] for k, v in fn.labels.items()}, **added}
    fn.body = body
    fn.analyses.clear()
    return True


def _slot(kind: str, name: str, offset: int, tag: str, t: str, slots: dict[tuple[str, int], str], fn: Function) -> str:
    key = (kind + name, offset)
    if key not in slots:
        reg = f"%{tag}__{kind}{len(slots)}"  # no renamed callee register has "__"
        slots[key] = reg
        fn.registers[reg] = t
    return slots[key]


def _param_of(operand: str) -> tuple[str, int] | None:
    m = _PARAM_ADDR.match(operand.strip())
    if m is None:
        return None
    return m.group(1), int(m.group(2) or 0)


def _type(instr: Instr) -> str:
    return instr.parts[-1]


def _store_to_slot(instr: Instr, args: list[str], tag: str, slots: dict[tuple[str, int], str], fn: Function) -> Instr:
    if instr.parts[:2] == ("st", "param") and len(instr.operands) == 2:
        found = _param_of(instr.operands[0])
        if found is not None and found[0] in args:
            reg = _slot("a", found[0], found[1], tag, _type(instr), slots, fn)
            return replace(instr, opcode=f"mov.{_type(instr)}", operands=(reg, instr.operands[1]))
    return instr


def _load_from_slot(instr: Instr, rets: list[str], tag: str, slots: dict[tuple[str, int], str], fn: Function) -> Instr:
    if instr.parts[:2] == ("ld", "param") and len(instr.operands) == 2:
        found = _param_of(instr.operands[1])
        if found is not None and found[0] in rets:
            reg = _slot("r", found[0], found[1], tag, _type(instr), slots, fn)
            return replace(instr, opcode=f"mov.{_type(instr)}", operands=(instr.operands[0], reg))
    return instr


def _copy_of(
    callee: Function,
    call: Instr,
    args: list[str],
    rets: list[str],
    tag: str,
    slots: dict[tuple[str, int], str],
    fn: Function,
) -> tuple[list[Instr], dict[str, int]]:
    """The callee's body for one call site (with its labels, relative to the copy): registers
    and labels renamed, parameters and the return value through the call site's registers,
    `ret` a branch past the copy."""
    params = [p.name for p in callee.params]
    retvals = [f"func_retval{i}" for i in range(max(len(rets), 1))]
    prefixes = sorted(callee.registers, key=len, reverse=True)
    for prefix, t in callee.registers.items():
        fn.registers[_renamed(prefix, tag)] = t
    reg = re.compile("(" + "|".join(re.escape(p) for p in prefixes) + r")(\d*)(?![\w$])") if prefixes else None
    labels = {name: f"$inl{tag}{name.lstrip('$')}" for name in callee.labels}
    end = f"$inl{tag}end"

    def rename(text: str) -> str:
        if reg is not None:
            text = reg.sub(lambda m: _renamed(m.group(1), tag) + m.group(2), text)
        for old, new in labels.items():
            text = re.sub(rf"(?<![\w$]){re.escape(old)}(?![\w$])", new, text)
        return text

    out: list[Instr] = []
    for ins in callee.body:
        copy = replace(
            ins,
            operands=tuple(rename(o) for o in ins.operands),
            pred=rename(ins.pred) if ins.pred else ins.pred,
            line=ins.line or call.line,
            inlined_at=ins.inlined_at if ins.line else call.line,
        )
        found = (
            _param_of(ins.operands[-1] if ins.parts[:2] == ("ld", "param") else ins.operands[0])
            if len(ins.operands) == 2
            else None
        )
        if ins.parts[:2] == ("ld", "param") and found is not None and found[0] in params:
            k = params.index(found[0])
            reg_ = _slot("a", args[k] if k < len(args) else found[0], found[1], tag, _type(ins), slots, fn)
            copy = replace(copy, opcode=f"mov.{_type(ins)}", operands=(copy.operands[0], reg_))
        elif ins.parts[:2] == ("st", "param") and found is not None and found[0] in retvals:
            k = retvals.index(found[0])
            reg_ = _slot("r", rets[k] if k < len(rets) else found[0], found[1], tag, _type(ins), slots, fn)
            copy = replace(copy, opcode=f"mov.{_type(ins)}", operands=(reg_, copy.operands[1]))
        elif ins.base == "ret":
            copy = replace(copy, opcode="bra", operands=(end,))  # a ret may be divergent
        out.append(copy)
    placed = {labels[name]: index for name, index in callee.labels.items()}
    placed[end] = len(out)
    return out, placed


def _renamed(prefix: str, tag: str) -> str:
    return "%" + tag + prefix.lstrip("%")
