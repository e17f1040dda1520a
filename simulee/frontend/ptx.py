"""Inline PTX lifted to LLVM IR, so that the interpreter runs what NVIDIA's headers (half
precision, cooperative groups, CUB) and user code write in `asm(...)`.

`lift_inline_asm(ir)` rewrites every `call T asm "PTX", "constraints"(args)` in a module's
text into a call of a new internal function that does the same in plain LLVM IR: each PTX
register is an integer alloca of its width (SROA promotes them after inlining), each label a
block, a predicated instruction a branch around it. A statement with an instruction this
module does not know is left as it is; the interpreter reports it if a thread reaches it.

Floating-point instructions compute in their own precision (f16, bf16, f32, f64, and the
x2 forms element by element); the directed roundings (rz, rm, rp) of f32 and f64 arithmetic
and of conversions to f32, f64 and f16 call the intrinsics that round so
(interpreter/rounding.py), those that round to an integer (rni, rzi, rmi, rpi) are honoured;
f16 and bf16 arithmetic rounds to nearest. Memory
instructions of every state space become loads, stores and atomics on pointers of that
address space; `ld.acquire`, `st.release` and `.relaxed` accesses are atomic loads and stores
at their scope, fences and `membar` LLVM fences at theirs, and an `atom.release` a fence
before the atomic (simulee.model.ordering orders threads by them). `cp.async` copies at once (the
copy is complete before any `wait_group`)."""

from __future__ import annotations

import re
import struct

from interpreter import rounding
from interpreter.irparse import split_top_level

# the IR of an inline-asm call: prefix, return type, asm string, constraints, arguments, rest
_CALL = re.compile(r'^(\s*(?:%[-\w.$]+ = )?)(?:tail |notail |musttail )?call '
                   r'((?:(?:noundef|zeroext|signext|inreg|fast|nnan|ninf|nsz|arcp|contract|afn|reassoc) )*)'
                   r'(.+?) asm (?:sideeffect )?(?:alignstack )?(?:convergent )?"((?:[^"\\]|\\.)*)", '
                   r'"((?:[^"\\]|\\.)*)"\((.*)$')

INT_TYPES = {f"{k}{n}": (k, n) for k in "sub" for n in (8, 16, 32, 64)}
FLOAT_TYPES = {"f16": ("half", 16), "bf16": ("bfloat", 16), "f32": ("float", 32), "f64": ("double", 64)}
PAIR_TYPES = {"f16x2": "f16", "bf16x2": "bf16"}
FP8_PAIRS = ("e4m3x2", "e5m2x2")  # two FP8 numbers in 16 bits (cvt)
CVT_MODIFIERS = {"rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "satfinite", "relu"}
TYPES = set(INT_TYPES) | set(FLOAT_TYPES) | set(PAIR_TYPES) | {"pred", "b128"}
SPACES = {"global": 1, "shared": 3, "const": 4, "local": 5, "param": 0, "generic": 0}
SPECIAL = {"tid", "ntid", "ctaid", "nctaid"}
SPECIAL_SCALAR = {"laneid": 32, "warpid": 32, "nwarpid": 32, "smid": 32, "nsmid": 32, "gridid": 64, "clock": 32,
                  "clock64": 64, "globaltimer": 64, "lanemask_eq": 32, "lanemask_lt": 32, "lanemask_le": 32,
                  "lanemask_gt": 32, "lanemask_ge": 32, "envreg1": 32, "envreg2": 32, "warpsize": 32}
_INT_BINARY = {"and": "and", "or": "or", "xor": "xor", "shl": "shl"}
_COMPARE_INT = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "lo": "ult", "ls": "ule",
                "hi": "ugt", "hs": "uge"}
_COMPARE_FLOAT = {"eq": "oeq", "ne": "one", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "equ": "ueq",
                  "neu": "une", "ltu": "ult", "leu": "ule", "gtu": "ugt", "geu": "uge", "num": "ord", "nan": "uno"}
_ATOMIC = {"add": "add", "exch": "xchg", "and": "and", "or": "or", "xor": "xor", "inc": "uinc_wrap",
           "dec": "udec_wrap"}
_FLOAT_UNARY = {"sqrt": "llvm.sqrt", "ex2": "llvm.exp2", "lg2": "llvm.log2", "sin": "llvm.sin", "cos": "llvm.cos"}


class NotLifted(Exception):
    """The statement uses PTX this module does not lift."""


def lift_inline_asm(ir: str) -> str:
    """`ir` with every liftable inline-asm call replaced by a call of an equivalent function."""
    if " asm " not in ir:
        return ir
    lines, added, cache, declarations = ir.split("\n"), [], {}, {}
    for index, line in enumerate(lines):
        if " asm " not in line:
            continue
        match = _CALL.match(line)
        if not match:
            continue
        prefix, _, ret, text, constraints, tail = match.groups()
        split = _split_call_arguments(tail)
        if split is None:
            continue
        arguments, rest = split
        try:
            types = [_argument_type(argument) for argument in arguments]
            key = (ret, text, constraints, tuple(types))
            if key not in cache:
                name = f"__simulee_ptx_{len(cache)}"
                statement = Statement(name, ret, _unescape(text), _unescape(constraints), types)
                added.append(statement.function())
                declarations.update(statement.declarations)
                cache[key] = name
        except (NotLifted, IndexError, KeyError, ValueError):  # a form the lifter does not know stays inline asm
            continue
        values = ", ".join(f"{t} {_argument_value(a)}" for t, a in zip(types, arguments))
        lines[index] = f"{prefix}call {ret} @{cache[key]}({values}){rest}"
    if not added:
        return ir
    declared = set(re.findall(r"^(?:declare|define)[^@\n]*@([-\w.$]+)\(", ir, re.M))
    added += [text for name, text in declarations.items() if name not in declared]
    return "\n".join(lines) + "\n" + "\n".join(added) + "\n"


def _split_call_arguments(tail: str):
    """(arguments, text after the closing parenthesis) of `tail`, which starts after '('."""
    depth, start, arguments = 0, 0, []
    for position, char in enumerate(tail):
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            if depth == 0 and char == ")":
                last = tail[start:position].strip()
                if last:
                    arguments.append(last)
                return arguments, tail[position + 1:]
            depth -= 1
        elif char == "," and depth == 0:
            arguments.append(tail[start:position].strip())
            start = position + 1
    return None


def _argument_type(argument: str) -> str:
    if "elementtype(" in argument:
        raise NotLifted("memory operand")
    match = re.match(r"(ptr addrspace\(\d+\)|<\d+ x \w+>|\w+)", argument)
    if not match:
        raise NotLifted(argument)
    return match.group(1)


def _argument_value(argument: str) -> str:
    ty = _argument_type(argument)
    rest = argument[len(ty):].split()
    while rest and rest[0] in ("noundef", "zeroext", "signext", "inreg"):
        rest.pop(0)
    return " ".join(rest)


def _unescape(text: str) -> str:
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def _type_bits(ty: str) -> int:
    if ty.startswith("ptr"):
        return 64
    if re.fullmatch(r"i\d+", ty):
        return int(ty[1:])
    if ty in ("half", "bfloat"):
        return 16
    if ty == "float":
        return 32
    if ty == "double":
        return 64
    vector = re.fullmatch(r"<(\d+) x (\w+)>", ty)
    if vector:
        return int(vector.group(1)) * _type_bits(vector.group(2))
    raise NotLifted(f"operand type {ty}")


class Register:
    def __init__(self, slot: str, bits: int):
        self.slot, self.bits = slot, bits


class Statement:
    """One inline-asm statement and the function that implements it."""

    def __init__(self, name: str, ret: str, text: str, constraints: str, types: list[str]):
        self.name, self.ret, self.types = name, ret, types
        self.body: list[str] = []
        self.entry: list[str] = []
        self.count = 0
        self.declarations: dict[str, str] = {}
        self.scopes: list[dict[str, Register]] = [{}]
        self.block_open = True
        codes = [c for c in constraints.split(",") if c and not c.startswith("~")]
        self.outputs = [c for c in codes if c.startswith("=")]
        self.inputs = codes[len(self.outputs):]
        if len(self.inputs) != len(types):
            raise NotLifted("constraints do not match the arguments")
        self.output_types = self._output_types()
        self.text = text

    # -- the function

    def function(self) -> str:
        for index, (code, ty) in enumerate(zip(self.outputs, self.output_types)):
            if "*" in code:
                raise NotLifted("indirect output")
            self._declare(f"%__op{index}", _type_bits(ty))
        for position, (code, ty) in enumerate(zip(self.inputs, self.types)):
            number = len(self.outputs) + position
            tied = code.isdigit()
            register = self.scopes[0][f"%__op{int(code)}"] if tied else self._declare(f"%__op{number}", _type_bits(ty))
            self.scopes[0][f"%__op{number}"] = register
            self._emit(f"store {self._bits_type(register.bits)} {self._to_bits(f'%a{position}', ty)}, ptr "
                       f"{register.slot}")
        self._statements(self._parse(self.text))
        result = self._result()
        parameters = ", ".join(f"{ty} %a{i}" for i, ty in enumerate(self.types))
        body = "\n  ".join(self.entry + ["br label %start", "start:"] + self.body + result)
        return f"define internal {self.ret} @{self.name}({parameters}) alwaysinline nounwind {{\nentry:\n  {body}\n}}\n"

    def _output_types(self) -> list[str]:
        if self.ret == "void":
            return []
        if self.ret.startswith("{"):
            return [t.strip() for t in self.ret.strip("{} ").split(",")]
        return [self.ret]

    def _result(self) -> list[str]:
        values = []
        for index, ty in enumerate(self.output_types):
            register = self.scopes[0][f"%__op{index}"]
            bits = self._load(register)
            values.append(self._from_bits(bits, register.bits, ty))
        if not values:
            return ["ret void"]
        if len(values) == 1:
            return [f"ret {self.ret} {values[0]}"]
        current = "undef"
        for index, (value, ty) in enumerate(zip(values, self.output_types)):
            current = self._tmp(f"insertvalue {self.ret} {current}, {ty} {value}, {index}")
        return [f"ret {self.ret} {current}"]

    # -- emission helpers

    def _emit(self, text: str) -> None:
        if not self.block_open:
            self.body.append(f"dead{self.count}:")
            self.count += 1
            self.block_open = True
        self.body.append(text)

    def _tmp(self, text: str) -> str:
        self.count += 1
        name = f"%t{self.count}"
        self._emit(f"{name} = {text}")
        return name

    def _label(self, name: str) -> None:
        if self.block_open:
            self.body.append(f"br label %{name}")
        self.body.append(f"{name}:")
        self.block_open = True

    def _terminate(self, text: str) -> None:
        self._emit(text)
        self.block_open = False

    def _declare(self, name: str, bits: int) -> Register:
        self.count += 1
        register = Register(f"%r{self.count}", bits)
        self.entry.append(f"{register.slot} = alloca {self._bits_type(bits)}")
        self.entry.append(f"store {self._bits_type(bits)} 0, ptr {register.slot}")
        self.scopes[-1][name] = register
        return register

    def _find(self, name: str) -> Register | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    @staticmethod
    def _bits_type(bits: int) -> str:
        return f"i{bits}"

    def _load(self, register: Register) -> str:
        return self._tmp(f"load {self._bits_type(register.bits)}, ptr {register.slot}")

    def _call(self, ret: str, name: str, arguments: list[tuple[str, str]]) -> str:
        self.declarations[name] = f"declare {ret} @{name}({', '.join(t for t, _ in arguments)})"
        values = ", ".join(f"{t} {v}" for t, v in arguments)
        if ret == "void":
            self._emit(f"call void @{name}({values})")
            return ""
        return self._tmp(f"call {ret} @{name}({values})")

    def _resize(self, value: str, source: int, target: int, signed: bool = False) -> str:
        if source == target:
            return value
        if source > target:
            return self._tmp(f"trunc i{source} {value} to i{target}")
        return self._tmp(f"{'sext' if signed else 'zext'} i{source} {value} to i{target}")

    def _to_bits(self, value: str, ty: str) -> str:
        bits = _type_bits(ty)
        if ty.startswith("ptr"):
            return self._tmp(f"ptrtoint {ty} {value} to i64")
        if ty.startswith("i"):
            return value
        return self._tmp(f"bitcast {ty} {value} to i{bits}")

    def _from_bits(self, value: str, bits: int, ty: str) -> str:
        wanted = _type_bits(ty)
        value = self._resize(value, bits, wanted)
        if ty.startswith("ptr"):
            return self._tmp(f"inttoptr i64 {value} to {ty}")
        if ty.startswith("i"):
            return value
        return self._tmp(f"bitcast i{wanted} {value} to {ty}")

    # -- parsing

    @staticmethod
    def _parse(text: str) -> list[str]:
        """The statements of `text`: '{' and '}' opening and closing scopes, 'name:' labels
        and instructions (without their ';'), operand numbers spelled %__opN."""
        text = text.replace("$$", "\x01")
        text = re.sub(r"\$(?:\{(\d+)(?::\w+)?\}|(\d+))", lambda m: f"%__op{m.group(1) or m.group(2)}", text)
        text = text.replace("\x01", "$")
        text = re.sub(r"//[^\n]*", "", text)
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        tokens, position = [], 0
        while position < len(text):
            char = text[position]
            if char.isspace() or char == ";":
                position += 1
                continue
            if char in "{}":
                tokens.append(char)
                position += 1
                continue
            label = re.compile(r"([A-Za-z_$][\w$]*)\s*:(?!:)").match(text, position)
            if label:
                tokens.append(label.group(1) + ":")
                position = label.end()
                continue
            depth, end = 0, position
            while end < len(text) and not (text[end] == ";" and depth == 0):
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                if depth < 0:
                    break
                end += 1
            tokens.append(" ".join(text[position:end].split()))
            position = end
        return tokens

    def _statements(self, tokens: list[str]) -> None:
        for token in tokens:
            if token == "{":
                self.scopes.append({})
            elif token == "}":
                if len(self.scopes) > 1:
                    self.scopes.pop()
            elif token.endswith(":"):
                self._label(self._block_name(token[:-1]))
            else:
                self._instruction(token)

    def _block_name(self, label: str) -> str:
        return "L_" + re.sub(r"[^\w]", "_", label)

    # -- instructions

    def _instruction(self, text: str) -> None:
        guard = None
        match = re.match(r"@(!?)([%\w$]+)\s+", text)
        if match:
            guard = (match.group(1) == "!", match.group(2))
            text = text[match.end():]
        parts = text.split(None, 1)
        opcode, operands = parts[0], _operands(parts[1]) if len(parts) > 1 else []
        if opcode == ".reg":
            self._registers(operands, text)
            return
        if opcode.startswith("."):
            raise NotLifted(f"directive {opcode}")
        if guard is None:
            self._execute(opcode, operands)
            return
        negate, predicate = guard
        condition = self._read(predicate, 1)
        then, skip = f"g{self.count}", f"s{self.count}"
        self.count += 1
        first, second = (skip, then) if negate else (then, skip)
        self._terminate(f"br i1 {condition}, label %{first}, label %{second}")
        self._label(then)
        self._execute(opcode, operands)
        self._label(skip)

    def _registers(self, operands: list[str], text: str) -> None:
        words = text.split()
        kind = words[1].lstrip(".")
        bits = 1 if kind == "pred" else _bits_of(kind)
        names = " ".join(words[2:]).replace(";", "")
        for name in re.split(r"\s*,\s*", names):
            name = name.strip()
            counted = re.fullmatch(r"([%\w$]+)<(\d+)>", name)
            if counted:
                for number in range(int(counted.group(2))):
                    self._declare(f"{counted.group(1)}{number}", bits)
            elif name:
                self._declare(name, bits)

    def _execute(self, opcode: str, operands: list[str]) -> None:
        parts = opcode.split(".")
        base, modifiers = parts[0], parts[1:]
        handler = getattr(self, f"_op_{base}", None)
        if handler is None:
            raise NotLifted(f"instruction {opcode}")
        handler(modifiers, operands)

    # operand access

    def _read(self, operand: str, bits: int, float_type: str | None = None, signed: bool = False) -> str:
        """The value of `operand` as an i{bits}."""
        operand = operand.strip()
        if operand.startswith("!"):
            value = self._read(operand[1:], 1)
            return self._tmp(f"xor i1 {value}, true")
        register = self._find(operand)
        if register is not None:
            return self._resize(self._load(register), register.bits, bits, signed)
        special = self._special(operand)
        if special is not None:
            value, width = special
            return self._resize(value, width, bits)
        value = _immediate(operand, bits, float_type)
        return ("true" if value else "false") if bits == 1 else str(value)

    def _special(self, operand: str):
        if operand == "WARP_SZ":
            return "32", 32
        match = re.fullmatch(r"%(\w+)(?:\.([xyz]))?", operand)
        if not match:
            return None
        name, axis = match.groups()
        if name in SPECIAL and axis:
            return self._call("i32", f"llvm.nvvm.read.ptx.sreg.{name}.{axis}", []), 32
        if name in SPECIAL_SCALAR and not axis:
            bits = SPECIAL_SCALAR[name]
            intrinsic = name.replace("lanemask_", "lanemask.")
            return self._call(f"i{bits}", f"llvm.nvvm.read.ptx.sreg.{intrinsic}", []), bits
        raise NotLifted(f"special register {operand}")

    def _write(self, operand: str, value: str, bits: int, signed: bool = False) -> None:
        operand = operand.strip()
        if operand == "_":
            return
        register = self._find(operand)
        if register is None:
            raise NotLifted(f"unknown register {operand}")
        self._emit(f"store i{register.bits} {self._resize(value, bits, register.bits, signed)}, ptr {register.slot}")

    # typed helpers

    def _float(self, value: str, ftype: str) -> str:
        bits = FLOAT_TYPES[ftype][1]
        return self._tmp(f"bitcast i{bits} {value} to {FLOAT_TYPES[ftype][0]}")

    def _unfloat(self, value: str, ftype: str) -> str:
        name, bits = FLOAT_TYPES[ftype]
        return self._tmp(f"bitcast {name} {value} to i{bits}")

    def _lanes(self, modifiers: list[str]):
        """(element type, lane count) of an instruction's float type, or None."""
        for modifier in modifiers:
            if modifier in PAIR_TYPES:
                return PAIR_TYPES[modifier], 2
            if modifier in FLOAT_TYPES:
                return modifier, 1
        return None

    def _float_map(self, modifiers, operands, compute, directed: str = "") -> None:
        """d = compute(a, b, ...) per lane, on the float type of `modifiers`; on f32 and f64
        with a directed rounding (rz, rm, rp), NVVM's intrinsic `directed` in that mode."""
        ftype, lanes = self._lanes(modifiers)
        mode = next((m for m in modifiers if m in ("rz", "rm", "rp")), None)
        if directed and mode and ftype in ("f32", "f64"):
            name = rounding.operation_name(directed, mode, "ftz" in modifiers and ftype == "f32", ftype == "f64")
            compute = lambda t, *values: self._call(t, name, [(t, v) for v in values])  # noqa: E731
        bits = FLOAT_TYPES[ftype][1]
        words = [self._read(o, bits * lanes, ftype) for o in operands[1:]]
        results = []
        for lane in range(lanes):
            values = [self._float(self._lane(w, lane, bits, lanes), ftype) for w in words]
            results.append(self._unfloat(compute(FLOAT_TYPES[ftype][0], *values), ftype))
        self._write(operands[0], self._pack(results, bits), bits * lanes)

    def _lane(self, word: str, lane: int, bits: int, lanes: int) -> str:
        if lanes == 1:
            return word
        shifted = self._tmp(f"lshr i{bits * lanes} {word}, {lane * bits}") if lane else word
        return self._resize(shifted, bits * lanes, bits)

    def _pack(self, values: list[str], bits: int) -> str:
        """Little-endian concatenation of i{bits} values (the first is the low part)."""
        if len(values) == 1:
            return values[0]
        total = bits * len(values)
        result = "0"
        for lane, value in enumerate(values):
            wide = self._resize(value, bits, total)
            if lane:
                wide = self._tmp(f"shl i{total} {wide}, {lane * bits}")
            result = self._tmp(f"or i{total} {result}, {wide}")
        return result

    def _int_type(self, modifiers: list[str]):
        for modifier in modifiers:
            if modifier in INT_TYPES:
                return INT_TYPES[modifier]
        for modifier in modifiers:
            if modifier == "pred":
                return ("b", 1)
        raise NotLifted(f"no integer type in {'.'.join(modifiers)}")

    def _fcall(self, ftype_name: str, intrinsic: str, *values: str) -> str:
        suffix = {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}[ftype_name]
        return self._call(ftype_name, f"{intrinsic}.{suffix}", [(ftype_name, v) for v in values])

    # -- data movement

    def _op_mov(self, modifiers, operands):
        destination, source = operands
        kinds = [m for m in modifiers if m in TYPES]
        bits = 1 if kinds == ["pred"] else _bits_of(kinds[0])
        if source.startswith("{"):
            parts = _vector(source)
            width = bits // len(parts)
            self._write(destination, self._pack([self._read(p, width) for p in parts], width), bits)
            return
        if destination.startswith("{"):
            parts = _vector(destination)
            width = bits // len(parts)
            word = self._read(source, bits)
            for lane, part in enumerate(parts):
                self._write(part, self._lane(word, lane, width, len(parts)), width)
            return
        self._write(destination, self._read(source, bits, kinds[0] if kinds[0] in FLOAT_TYPES else None), bits)

    def _op_cvt(self, modifiers, operands):
        if "tf32" in modifiers:
            self._cvt_tf32(modifiers, operands)
            return
        if any(m not in TYPES and m not in FP8_PAIRS and m not in CVT_MODIFIERS for m in modifiers):
            raise NotLifted(f"cvt.{'.'.join(modifiers)}")  # a type it does not know (FP4, FP6): never as another
        fp8 = [m for m in modifiers if m in FP8_PAIRS]
        if fp8:
            self._cvt_fp8(modifiers, operands, fp8[0])
            return
        kinds = [m for m in modifiers if m in TYPES]
        rounding = next((m for m in modifiers if m in ("rni", "rzi", "rmi", "rpi")), None)
        saturate, relu = "sat" in modifiers, "relu" in modifiers
        target, source = kinds[0], kinds[-1]
        if target in PAIR_TYPES:
            element = PAIR_TYPES[target]
            low = self._convert_float(self._read(operands[2], 32), source, element, relu)
            high = self._convert_float(self._read(operands[1], 32), source, element, relu)
            self._write(operands[0], self._pack([low, high], 16), 32)
            return
        directed = next((m for m in modifiers if m in ("rz", "rm", "rp")), None)
        if directed and target in FLOAT_TYPES and self._cvt_directed(directed, "ftz" in modifiers, operands, target,
                                                                      source):
            return
        if target in FLOAT_TYPES and source in FLOAT_TYPES:
            value = self._convert_float(self._read(operands[1], _bits_of(source), source), source, target, relu,
                                        rounding)
            if saturate:
                value = self._unfloat(self._clamp01(self._float(value, target), FLOAT_TYPES[target][0]), target)
            self._write(operands[0], value, _bits_of(target))
        elif target in FLOAT_TYPES:
            kind, bits = INT_TYPES[source]
            value = self._read(operands[1], bits, signed=kind == "s")
            name = FLOAT_TYPES[target][0]
            converted = self._tmp(f"{'sitofp' if kind == 's' else 'uitofp'} i{bits} {value} to {name}")
            self._write(operands[0], self._unfloat(converted, target), _bits_of(target))
        elif source in FLOAT_TYPES:
            name = FLOAT_TYPES[source][0]
            value = self._float(self._read(operands[1], _bits_of(source), source), source)
            value = self._round(value, name, rounding or "rzi")
            kind, bits = INT_TYPES[target]
            converted = self._tmp(f"{'fptosi' if kind == 's' else 'fptoui'} {name} {value} to i{bits}")
            self._write(operands[0], converted, bits, kind == "s")
        else:
            target_kind, target_bits = INT_TYPES[target]
            source_kind, source_bits = INT_TYPES[source]
            value = self._read(operands[1], source_bits, signed=source_kind == "s")
            wide = self._resize(value, source_bits, 64, source_kind == "s")
            if saturate:
                low, high = _int_range(target_kind, target_bits)
                compare = "s" if source_kind == "s" else "u"
                wide = self._call("i64", f"llvm.{compare}max.i64", [("i64", wide), ("i64", str(low))])
                wide = self._call("i64", f"llvm.{compare}min.i64", [("i64", wide), ("i64", str(high))])
            self._write(operands[0], self._resize(wide, 64, target_bits), target_bits, target_kind == "s")

    def _cvt_directed(self, mode: str, ftz: bool, operands, target: str, source: str) -> bool:
        """A conversion to a float in a directed rounding `mode` by the function that rounds
        so (interpreter/rounding.py); False where every value converts exactly (the plain
        path's). Into bf16, or from f16 and bf16, it stays inline asm."""
        if source in FLOAT_TYPES:
            exact = _bits_of(source) <= _bits_of(target) and source == target
            exact = exact or (source, target) in (("f16", "f32"), ("f16", "f64"), ("bf16", "f32"), ("bf16", "f64"),
                                                  ("f32", "f64"))
            argument = (FLOAT_TYPES[source][0], self._float(self._read(operands[1], _bits_of(source), source), source))
        else:
            kind, bits = INT_TYPES[source]
            exact = bits <= {"f16": 8, "bf16": 8, "f32": 16, "f64": 32}[target]
            argument = (f"i{bits}", self._read(operands[1], bits, signed=kind == "s"))
        if exact:
            return False
        if target == "bf16" or source in ("f16", "bf16"):
            raise NotLifted(f"cvt.{mode}.{target}.{source}")  # never rounded another way than asked
        function = rounding.conversion_name(mode, ftz, source)
        name = FLOAT_TYPES[target][0]
        self._write(operands[0], self._unfloat(self._call(name, function, [argument]), target), _bits_of(target))
        return True

    def _cvt_tf32(self, modifiers, operands) -> None:
        """f32 to TF32 (10 bits of mantissa, the 13 below them zero), rounded to nearest with
        ties away (rna, as mma.h's __float_to_tf32), to nearest even (rn) or toward zero
        (rz); NaN stays as it is, a value beyond TF32's largest rounds to infinity."""
        if "f32" not in modifiers:
            raise NotLifted(f"cvt.{'.'.join(modifiers)}")
        bits = self._read(operands[1], 32)
        if "rz" in modifiers:
            rounded = bits
        elif "rn" in modifiers:
            kept = self._tmp(f"and i32 {self._tmp(f'lshr i32 {bits}, 13')}, 1")
            rounded = self._tmp(f"add i32 {bits}, {self._tmp(f'add i32 {kept}, 4095')}")
        else:
            rounded = self._tmp(f"add i32 {bits}, 4096")
        truncated = self._tmp(f"and i32 {rounded}, -8192")
        magnitude = self._tmp(f"and i32 {bits}, 2147483647")
        nan = self._tmp(f"icmp ugt i32 {magnitude}, 2139095040")
        self._write(operands[0], self._tmp(f"select i1 {nan}, i32 {bits}, i32 {truncated}"), 32)

    def _cvt_fp8(self, modifiers, operands, pair: str) -> None:
        """Conversions between pairs of FP8 numbers (E4M3, E5M2: a byte each, the first
        source's the high one) and pairs of f32 or f16, as LLVM's NVVM intrinsics that
        name them (each rounds to nearest even and saturates to the finite range)."""
        name = pair.removesuffix("x2")
        if modifiers.index(pair) > 0 and "f16x2" in modifiers:  # to f16x2 from an FP8 pair
            word = self._call("<2 x half>", f"llvm.nvvm.{name}x2.to.f16x2.rn", [("i16", self._read(operands[1], 16))])
            self._write(operands[0], self._tmp(f"bitcast <2 x half> {word} to i32"), 32)
            return
        if len(operands) == 3 and "f32" in modifiers:  # from two f32
            relu = ".relu" if "relu" in modifiers else ""
            high, low = (self._float(self._read(o, 32, "f32"), "f32") for o in operands[1:])
            value = self._call("i16", f"llvm.nvvm.ff.to.{name}x2.rn{relu}", [("float", high), ("float", low)])
        elif len(operands) == 2 and "f16x2" in modifiers:  # from a pair of f16
            relu = ".relu" if "relu" in modifiers else ""
            halves = self._tmp(f"bitcast i32 {self._read(operands[1], 32)} to <2 x half>")
            value = self._call("i16", f"llvm.nvvm.f16x2.to.{name}x2.rn{relu}", [("<2 x half>", halves)])
        else:
            raise NotLifted(f"cvt.{'.'.join(modifiers)}")
        self._write(operands[0], value, 16)

    def _convert_float(self, value, source, target, relu=False, rounding=None):
        """The bits of float `value` (bits of `source`) converted to `target`."""
        source_name, source_bits = FLOAT_TYPES[source]
        target_name, target_bits = FLOAT_TYPES[target]
        number = self._float(value, source)
        if rounding:
            number = self._round(number, source_name, rounding)
        if source_bits != target_bits or source_name != target_name:
            if source_bits < target_bits:
                number = self._tmp(f"fpext {source_name} {number} to {target_name}")
            elif source_bits > target_bits:
                number = self._tmp(f"fptrunc {source_name} {number} to {target_name}")
            else:
                wide = self._tmp(f"fpext {source_name} {number} to float")
                number = self._tmp(f"fptrunc float {wide} to {target_name}")
        if relu:
            number = self._fcall(target_name, "llvm.maxnum", number, _zero(target_name))
        return self._unfloat(number, target)

    def _round(self, value, name, rounding):
        intrinsic = {"rni": "llvm.roundeven", "rzi": "llvm.trunc", "rmi": "llvm.floor", "rpi": "llvm.ceil"}[rounding]
        return self._fcall(name, intrinsic, value)

    def _clamp01(self, value, name):
        zero, one = _zero(name), _one(name)
        value = self._fcall(name, "llvm.maxnum", value, zero)
        return self._fcall(name, "llvm.minnum", value, one)

    def _op_cvta(self, modifiers, operands):
        space = next((SPACES[m] for m in modifiers if m in SPACES), 0)
        bits = _bits_of(next((m for m in modifiers if m in INT_TYPES), "u64"))
        value = self._resize(self._read(operands[1], bits), bits, 64)
        if "to" in modifiers:
            generic = self._tmp(f"inttoptr i64 {value} to ptr")
            cast = self._tmp(f"addrspacecast ptr {generic} to ptr addrspace({space})") if space else generic
            result = self._tmp(f"ptrtoint ptr addrspace({space}) {cast} to i64") if space else value
        else:
            pointer = self._tmp(f"inttoptr i64 {value} to ptr addrspace({space})") if space else None
            cast = self._tmp(f"addrspacecast ptr addrspace({space}) {pointer} to ptr") if space else None
            result = self._tmp(f"ptrtoint ptr {cast} to i64") if space else value
        self._write(operands[0], self._resize(result, 64, bits), bits)

    # -- memory

    def _address(self, operand: str, modifiers) -> tuple[str, str]:
        """(pointer value, pointer type) of a [base+offset] operand in the space of `modifiers`."""
        space = next((SPACES[m.split("::")[0]] for m in modifiers if m.split("::")[0] in SPACES), 0)
        inner = operand.strip()[1:-1].strip()
        match = re.fullmatch(r"([^+\-]+?)\s*(?:([+-])\s*(\w+))?", inner)
        if not match:
            raise NotLifted(f"address {operand}")
        base, sign, offset = match.groups()
        register = self._find(base.strip())
        value = self._read(base, 64) if register is None or register.bits == 64 else \
            self._resize(self._load(register), register.bits, 64)
        if offset:
            value = self._tmp(f"add i64 {value}, {_immediate(sign + offset if sign == '-' else offset, 64)}")
        ty = f"ptr addrspace({space})" if space else "ptr"
        return self._tmp(f"inttoptr i64 {value} to {ty}"), ty

    def _access_type(self, modifiers) -> tuple[str, int, int]:
        """(IR type, bits, vector width) of a memory instruction."""
        width = next((int(m[1:]) for m in modifiers if re.fullmatch(r"v\d", m)), 1)
        kind = next((m for m in modifiers if m in TYPES), None)
        if kind is None:
            raise NotLifted("memory access without a type")
        if kind in FLOAT_TYPES and width == 1:
            return f"i{FLOAT_TYPES[kind][1]}", FLOAT_TYPES[kind][1], width
        bits = _bits_of(kind)
        return f"i{bits}", bits, width

    def _op_ld(self, modifiers, operands):
        pointer, ptype = self._address(operands[1], modifiers)
        ty, bits, width = self._access_type(modifiers)
        volatile = "volatile " if "volatile" in modifiers else ""
        ordering = _ordering(modifiers, bits)
        targets = _vector(operands[0]) if width > 1 else [operands[0]]
        for lane, target in enumerate(targets):
            address = self._tmp(f"getelementptr {ty}, {ptype} {pointer}, i64 {lane}") if lane else pointer
            if ordering:
                value = self._tmp(f"load atomic {ty}, {ptype} {address}{ordering}")
            else:
                value = self._tmp(f"load {volatile}{ty}, {ptype} {address}")
            self._write(target, value, bits, any(m.startswith("s") and m in INT_TYPES for m in modifiers))

    _op_ldu = _op_ld

    def _op_st(self, modifiers, operands):
        pointer, ptype = self._address(operands[0], modifiers)
        ty, bits, width = self._access_type(modifiers)
        volatile = "volatile " if "volatile" in modifiers else ""
        ordering = _ordering(modifiers, bits)
        sources = _vector(operands[1]) if width > 1 else [operands[1]]
        for lane, source in enumerate(sources):
            address = self._tmp(f"getelementptr {ty}, {ptype} {pointer}, i64 {lane}") if lane else pointer
            atomic = "atomic " if ordering else volatile
            self._emit(f"store {atomic}{ty} {self._read(source, bits)}, {ptype} {address}{ordering}")

    def _op_atom(self, modifiers, operands, result=True):
        kinds = [m for m in modifiers if m in TYPES]
        kind = kinds[0]
        operation = next((m for m in modifiers if m in _ATOMIC or m in ("cas", "min", "max")), None)
        if operation is None or kind in PAIR_TYPES or "v2" in modifiers or "v4" in modifiers:
            raise NotLifted(f"atom {'.'.join(modifiers)}")
        offset = 1 if result else 0
        pointer, ptype = self._address(operands[offset], modifiers)
        if {"release", "acq_rel"} & set(modifiers):  # a release: a fence of its scope, then the atomic
            self._op_fence(modifiers, [])
        scope = _syncscope(modifiers)
        if kind in FLOAT_TYPES:
            name, bits = FLOAT_TYPES[kind]
            rmw = {"add": "fadd", "min": "fmin", "max": "fmax", "exch": "xchg"}.get(operation)
            if rmw is None:
                raise NotLifted(f"atom.{operation}.{kind}")
            value = self._float(self._read(operands[offset + 1], bits, kind), kind)
            old = self._tmp(f"atomicrmw {rmw} {ptype} {pointer}, {name} {value}{scope} seq_cst")
            if result:
                self._write(operands[0], self._unfloat(old, kind), bits)
            return
        sign, bits = INT_TYPES.get(kind, ("b", _bits_of(kind)))
        value = self._read(operands[offset + 1], bits)
        if operation == "cas":
            new = self._read(operands[offset + 2], bits)
            pair = self._tmp(f"cmpxchg {ptype} {pointer}, i{bits} {value}, i{bits} {new}{scope} seq_cst seq_cst")
            old = self._tmp(f"extractvalue {{ i{bits}, i1 }} {pair}, 0")
        else:
            rmw = _ATOMIC.get(operation) or ("" if sign == "s" else "u") + operation
            old = self._tmp(f"atomicrmw {rmw} {ptype} {pointer}, i{bits} {value}{scope} seq_cst")
        if result:
            self._write(operands[0], old, bits)

    def _op_red(self, modifiers, operands):
        self._op_atom(modifiers, operands, result=False)

    def _op_cp(self, modifiers, operands):
        if modifiers[:1] != ["async"]:
            raise NotLifted("cp")
        if len(modifiers) > 1 and modifiers[1] in ("commit_group", "wait_group", "wait_all"):
            return
        if "bulk" in modifiers:
            raise NotLifted("cp.async.bulk")
        destination, dtype = self._address(operands[0], ["shared"])
        source, stype = self._address(operands[1], ["global"])
        size = int(_immediate(operands[2], 32))
        copied = int(_immediate(operands[3], 32)) if len(operands) > 3 and self._find(operands[3]) is None \
            else None
        if len(operands) > 3 and copied is None:
            raise NotLifted("cp.async with a run-time source size")
        count = size if copied is None else copied
        self._call("void", "llvm.memcpy.p3.p1.i64",
                   [(dtype, destination), (stype, source), ("i64", str(count)), ("i1", "false")])
        if count < size:
            tail = self._tmp(f"getelementptr i8, {dtype} {destination}, i64 {count}")
            self._call("void", "llvm.memset.p3.i64", [(dtype, tail), ("i8", "0"), ("i64", str(size - count)),
                                                      ("i1", "false")])

    def _op_prefetch(self, modifiers, operands):
        pass

    _op_prefetchu = _op_prefetch

    def _op_fence(self, modifiers, operands):
        if "proxy" not in modifiers:  # fence.sc / fence.acq_rel / membar, at their scope
            self._emit(f"fence{_syncscope(modifiers)} seq_cst")

    _op_membar = _op_fence

    def _op_nanosleep(self, modifiers, operands):
        pass

    def _op_pmevent(self, modifiers, operands):
        pass

    # -- integer arithmetic

    def _op_add(self, modifiers, operands):
        self._arith(modifiers, operands, "add")

    def _op_sub(self, modifiers, operands):
        self._arith(modifiers, operands, "sub")

    def _op_addc(self, modifiers, operands):
        self._arith(modifiers, operands, "add", carry_in=True)

    def _op_subc(self, modifiers, operands):
        self._arith(modifiers, operands, "sub", carry_in=True)

    def _arith(self, modifiers, operands, op, carry_in=False):
        if self._lanes(modifiers):
            flop = {"add": "fadd", "sub": "fsub"}[op]
            self._float_map(modifiers, operands, lambda t, a, b: self._tmp(f"{flop} {t} {a}, {b}"), op)
            return
        kind, bits = self._int_type(modifiers)
        a, b = self._read(operands[1], bits), self._read(operands[2], bits)
        if "sat" in modifiers:
            name = f"llvm.{'s' if kind == 's' else 'u'}{op}.sat.i{bits}"
            self._write(operands[0], self._call(f"i{bits}", name, [(f"i{bits}", a), (f"i{bits}", b)]), bits)
            return
        if bits == 64:  # no 128-bit arithmetic: the carry (or borrow) from comparisons
            self._arith64(modifiers, operands, op, a, b, carry_in)
            return
        wide = bits * 2
        result = self._tmp(f"{op} i{wide} {self._resize(a, bits, wide)}, {self._resize(b, bits, wide)}")
        if carry_in:
            carry = self._resize(self._load(self._carry()), 1, wide)
            result = self._tmp(f"{op} i{wide} {result}, {carry}")
        if "cc" in modifiers:
            flag = self._tmp(f"lshr i{wide} {result}, {bits}")
            flag = self._resize(flag, wide, 1)
            self._emit(f"store i1 {flag}, ptr {self._carry().slot}")
        self._write(operands[0], self._resize(result, wide, bits), bits)

    def _arith64(self, modifiers, operands, op, a, b, carry_in) -> None:
        """A 64-bit add or sub, with the carry (or borrow) in and out of .cc and addc/subc."""
        result = self._tmp(f"{op} i64 {a}, {b}")
        out = self._tmp(f"icmp ult i64 {result}, {a}" if op == "add" else f"icmp ult i64 {a}, {b}")
        if carry_in:
            carry = self._resize(self._load(self._carry()), 1, 64)
            total = self._tmp(f"{op} i64 {result}, {carry}")
            second = self._tmp(f"icmp ult i64 {total}, {result}" if op == "add" else f"icmp ult i64 {result}, {carry}")
            out, result = self._tmp(f"or i1 {out}, {second}"), total
        if "cc" in modifiers:
            self._emit(f"store i1 {out}, ptr {self._carry().slot}")
        self._write(operands[0], result, 64)

    def _carry(self) -> Register:
        register = self.scopes[0].get("%%carry")
        if register is None:
            saved = self.scopes
            self.scopes = [saved[0]]
            register = self._declare("%%carry", 1)
            self.scopes = saved
        return register

    def _op_mul(self, modifiers, operands):
        if self._lanes(modifiers):
            self._float_map(modifiers, operands, lambda t, a, b: self._tmp(f"fmul {t} {a}, {b}"), "mul")
            return
        self._write(*self._multiply(modifiers, operands[:3]))

    def _multiply(self, modifiers, operands):
        """(destination, product, bits) of mul/mad's multiplication (.lo, .hi, .wide)."""
        kind, bits = self._int_type(modifiers)
        signed = kind == "s"
        a, b = self._read(operands[1], bits, signed=signed), self._read(operands[2], bits, signed=signed)
        if "wide" in modifiers:
            wide = bits * 2
            product = self._tmp(f"mul i{wide} {self._resize(a, bits, wide, signed)}, "
                                f"{self._resize(b, bits, wide, signed)}")
            return operands[0], product, wide
        if "hi" in modifiers:
            wide = bits * 2
            product = self._tmp(f"mul i{wide} {self._resize(a, bits, wide, signed)}, "
                                f"{self._resize(b, bits, wide, signed)}")
            high = self._tmp(f"lshr i{wide} {product}, {bits}")
            return operands[0], self._resize(high, wide, bits), bits
        return operands[0], self._tmp(f"mul i{bits} {a}, {b}"), bits

    def _op_mad(self, modifiers, operands):
        if self._lanes(modifiers):
            self._op_fma(modifiers, operands)
            return
        self._multiply_add(modifiers, operands, carry_in=False)

    def _op_madc(self, modifiers, operands):
        self._multiply_add(modifiers, operands, carry_in=True)

    def _multiply_add(self, modifiers, operands, carry_in: bool) -> None:
        """mad/madc (.lo, .hi, .wide): the product's part plus c (plus the carry flag with
        madc); with .cc the carry out of that sum sets the flag (multiword arithmetic, as
        libdevice's trigonometric reduction does)."""
        destination, product, bits = self._multiply(modifiers, operands[:3])
        addend = self._read(operands[3], bits)
        result = self._tmp(f"add i{bits} {product}, {addend}")
        carry = self._tmp(f"icmp ult i{bits} {result}, {product}")
        if carry_in:
            flag = self._load(self._carry())
            total = self._tmp(f"add i{bits} {result}, {self._resize(flag, 1, bits)}")
            carry = self._tmp(f"or i1 {carry}, {self._tmp(f'icmp ult i{bits} {total}, {result}')}")
            result = total
        if "cc" in modifiers:
            self._emit(f"store i1 {carry}, ptr {self._carry().slot}")
        self._write(destination, result, bits)

    def _op_mul24(self, modifiers, operands):
        kind, bits = self._int_type(modifiers)
        name = "llvm.nvvm.mul24.i" if kind == "s" else "llvm.nvvm.mul24.ui"
        a, b = self._read(operands[1], 32), self._read(operands[2], 32)
        self._write(operands[0], self._call("i32", name, [("i32", a), ("i32", b)]), 32)

    def _op_mad24(self, modifiers, operands):
        kind, _ = self._int_type(modifiers)
        name = "llvm.nvvm.mul24.i" if kind == "s" else "llvm.nvvm.mul24.ui"
        a, b, c = (self._read(o, 32) for o in operands[1:4])
        product = self._call("i32", name, [("i32", a), ("i32", b)])
        self._write(operands[0], self._tmp(f"add i32 {product}, {c}"), 32)

    def _op_sad(self, modifiers, operands):
        kind, bits = self._int_type(modifiers)
        a, b, c = (self._read(o, bits) for o in operands[1:4])
        prefix = "s" if kind == "s" else "u"
        high = self._call(f"i{bits}", f"llvm.{prefix}max.i{bits}", [(f"i{bits}", a), (f"i{bits}", b)])
        low = self._call(f"i{bits}", f"llvm.{prefix}min.i{bits}", [(f"i{bits}", a), (f"i{bits}", b)])
        difference = self._tmp(f"sub i{bits} {high}, {low}")
        self._write(operands[0], self._tmp(f"add i{bits} {difference}, {c}"), bits)

    def _op_div(self, modifiers, operands):
        if self._lanes(modifiers):
            self._float_map(modifiers, operands, lambda t, a, b: self._tmp(f"fdiv {t} {a}, {b}"), "div")
            return
        kind, bits = self._int_type(modifiers)
        a, b = self._read(operands[1], bits), self._read(operands[2], bits)
        self._write(operands[0], self._tmp(f"{'sdiv' if kind == 's' else 'udiv'} i{bits} {a}, {b}"), bits)

    def _op_rem(self, modifiers, operands):
        kind, bits = self._int_type(modifiers)
        a, b = self._read(operands[1], bits), self._read(operands[2], bits)
        self._write(operands[0], self._tmp(f"{'srem' if kind == 's' else 'urem'} i{bits} {a}, {b}"), bits)

    def _op_abs(self, modifiers, operands):
        if self._lanes(modifiers):
            self._float_map(modifiers, operands, lambda t, a: self._fcall(t, "llvm.fabs", a))
            return
        _, bits = self._int_type(modifiers)
        value = self._read(operands[1], bits)
        self._write(operands[0], self._call(f"i{bits}", f"llvm.abs.i{bits}", [(f"i{bits}", value), ("i1", "false")]),
                    bits)

    def _op_neg(self, modifiers, operands):
        if self._lanes(modifiers):
            self._float_map(modifiers, operands, lambda t, a: self._tmp(f"fneg {t} {a}"))
            return
        _, bits = self._int_type(modifiers)
        self._write(operands[0], self._tmp(f"sub i{bits} 0, {self._read(operands[1], bits)}"), bits)

    def _op_min(self, modifiers, operands):
        self._extremum(modifiers, operands, "min")

    def _op_max(self, modifiers, operands):
        self._extremum(modifiers, operands, "max")

    def _extremum(self, modifiers, operands, which):
        if self._lanes(modifiers):
            intrinsic = f"llvm.{which}imum" if "NaN" in modifiers else f"llvm.{which}num"
            self._float_map(modifiers, operands, lambda t, a, b: self._fcall(t, intrinsic, a, b))
            return
        kind, bits = self._int_type(modifiers)
        a, b = self._read(operands[1], bits), self._read(operands[2], bits)
        name = f"llvm.{'s' if kind == 's' else 'u'}{which}.i{bits}"
        self._write(operands[0], self._call(f"i{bits}", name, [(f"i{bits}", a), (f"i{bits}", b)]), bits)

    def _op_and(self, modifiers, operands):
        self._logic(modifiers, operands, "and")

    def _op_or(self, modifiers, operands):
        self._logic(modifiers, operands, "or")

    def _op_xor(self, modifiers, operands):
        self._logic(modifiers, operands, "xor")

    def _logic(self, modifiers, operands, op):
        _, bits = self._int_type(modifiers)
        a, b = self._read(operands[1], bits), self._read(operands[2], bits)
        self._write(operands[0], self._tmp(f"{op} i{bits} {a}, {b}"), bits)

    def _op_not(self, modifiers, operands):
        _, bits = self._int_type(modifiers)
        self._write(operands[0], self._tmp(f"xor i{bits} {self._read(operands[1], bits)}, -1"), bits)

    def _op_cnot(self, modifiers, operands):
        _, bits = self._int_type(modifiers)
        zero = self._tmp(f"icmp eq i{bits} {self._read(operands[1], bits)}, 0")
        self._write(operands[0], self._resize(zero, 1, bits), bits)

    def _op_shl(self, modifiers, operands):
        self._shift(modifiers, operands, "shl")

    def _op_shr(self, modifiers, operands):
        kind, _ = self._int_type(modifiers)
        self._shift(modifiers, operands, "ashr" if kind == "s" else "lshr")

    def _shift(self, modifiers, operands, op):
        _, bits = self._int_type(modifiers)
        a = self._read(operands[1], bits)
        amount = self._resize(self._read(operands[2], 32), 32, bits)
        limit = bits - 1 if op == "ashr" else bits
        clamped = self._call(f"i{bits}", f"llvm.umin.i{bits}", [(f"i{bits}", amount), (f"i{bits}", str(limit))])
        if op == "ashr":
            self._write(operands[0], self._tmp(f"ashr i{bits} {a}, {clamped}"), bits)
            return
        large = self._tmp(f"icmp uge i{bits} {clamped}, {bits}")
        safe = self._tmp(f"select i1 {large}, i{bits} 0, i{bits} {clamped}")
        shifted = self._tmp(f"{op} i{bits} {a}, {safe}")
        self._write(operands[0], self._tmp(f"select i1 {large}, i{bits} 0, i{bits} {shifted}"), bits)

    def _op_popc(self, modifiers, operands):
        _, bits = self._int_type(modifiers)
        value = self._call(f"i{bits}", f"llvm.ctpop.i{bits}", [(f"i{bits}", self._read(operands[1], bits))])
        self._write(operands[0], self._resize(value, bits, 32), 32)

    def _op_clz(self, modifiers, operands):
        _, bits = self._int_type(modifiers)
        value = self._call(f"i{bits}", f"llvm.ctlz.i{bits}", [(f"i{bits}", self._read(operands[1], bits)),
                                                               ("i1", "false")])
        self._write(operands[0], self._resize(value, bits, 32), 32)

    def _op_brev(self, modifiers, operands):
        _, bits = self._int_type(modifiers)
        value = self._call(f"i{bits}", f"llvm.bitreverse.i{bits}", [(f"i{bits}", self._read(operands[1], bits))])
        self._write(operands[0], value, bits)

    def _op_bfind(self, modifiers, operands):
        kind, bits = self._int_type(modifiers)
        value = self._read(operands[1], bits)
        if kind == "s":
            negative = self._tmp(f"icmp slt i{bits} {value}, 0")
            flipped = self._tmp(f"xor i{bits} {value}, -1")
            value = self._tmp(f"select i1 {negative}, i{bits} {flipped}, i{bits} {value}")
        zeros = self._call(f"i{bits}", f"llvm.ctlz.i{bits}", [(f"i{bits}", value), ("i1", "false")])
        position = self._resize(self._tmp(f"sub i{bits} {bits - 1}, {zeros}"), bits, 32)
        if "shiftamt" in modifiers:
            position = self._tmp(f"sub i32 {bits - 1}, {position}")
        none = self._tmp(f"icmp eq i{bits} {value}, 0")
        self._write(operands[0], self._tmp(f"select i1 {none}, i32 -1, i32 {position}"), 32)

    def _op_bfe(self, modifiers, operands):
        kind, bits = self._int_type(modifiers)
        value = self._read(operands[1], bits)
        start = self._resize(self._read(operands[2], 32), 32, bits)
        length = self._resize(self._read(operands[3], 32), 32, bits)
        start = self._call(f"i{bits}", f"llvm.umin.i{bits}", [(f"i{bits}", start), (f"i{bits}", "255")])
        length = self._call(f"i{bits}", f"llvm.umin.i{bits}", [(f"i{bits}", length), (f"i{bits}", "255")])
        # shift the field to the top, then back down (arithmetically for .s)
        end = self._tmp(f"add i{bits} {start}, {length}")
        end = self._call(f"i{bits}", f"llvm.umin.i{bits}", [(f"i{bits}", end), (f"i{bits}", str(bits))])
        up = self._tmp(f"sub i{bits} {bits}, {end}")
        top = self._shifted("shl", value, up, bits)
        down = self._tmp(f"sub i{bits} {bits}, {length}")
        result = self._shifted("ashr" if kind == "s" else "lshr", top, down, bits)
        if kind == "s":
            # a field that starts beyond the value repeats the sign bit
            sign = self._tmp(f"ashr i{bits} {value}, {bits - 1}")
            beyond = self._tmp(f"icmp uge i{bits} {start}, {bits}")
            result = self._tmp(f"select i1 {beyond}, i{bits} {sign}, i{bits} {result}")
        empty = self._tmp(f"icmp eq i{bits} {length}, 0")
        self._write(operands[0], self._tmp(f"select i1 {empty}, i{bits} 0, i{bits} {result}"), bits)

    def _shifted(self, op, value, amount, bits):
        """`value` shifted by `amount` (0..bits); a shift by `bits` gives 0 (or the sign)."""
        large = self._tmp(f"icmp uge i{bits} {amount}, {bits}")
        safe = self._tmp(f"select i1 {large}, i{bits} {bits - 1}, i{bits} {amount}")
        shifted = self._tmp(f"{op} i{bits} {value}, {safe}")
        if op == "ashr":
            return shifted
        return self._tmp(f"select i1 {large}, i{bits} 0, i{bits} {shifted}")

    def _op_bfi(self, modifiers, operands):
        _, bits = self._int_type(modifiers)
        a, b = self._read(operands[1], bits), self._read(operands[2], bits)
        start = self._resize(self._read(operands[3], 32), 32, bits)
        length = self._resize(self._read(operands[4], 32), 32, bits)
        ones = self._shifted("shl", "-1", length, bits)
        field = self._tmp(f"xor i{bits} {ones}, -1")
        mask = self._shifted("shl", field, start, bits)
        placed = self._shifted("shl", a, start, bits)
        kept = self._tmp(f"and i{bits} {b}, {self._tmp(f'xor i{bits} {mask}, -1')}")
        self._write(operands[0], self._tmp(f"or i{bits} {kept}, {self._tmp(f'and i{bits} {placed}, {mask}')}"), bits)

    def _op_prmt(self, modifiers, operands):
        if any(m in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16") for m in modifiers):
            raise NotLifted("prmt mode")
        a, b, c = (self._read(o, 32) for o in operands[1:4])
        self._write(operands[0], self._call("i32", "llvm.nvvm.prmt", [("i32", a), ("i32", b), ("i32", c)]), 32)

    def _op_lop3(self, modifiers, operands):
        a, b, c = (self._read(o, 32) for o in operands[1:4])
        table = self._read(operands[4], 32)
        result = "0"
        for minterm in range(8):
            term = "-1"
            for bit, value in zip((4, 2, 1), (a, b, c)):
                literal = value if minterm & bit else self._tmp(f"xor i32 {value}, -1")
                term = self._tmp(f"and i32 {term}, {literal}")
            selected = self._tmp(f"lshr i32 {table}, {minterm}")
            selected = self._tmp(f"and i32 {selected}, 1")
            mask = self._tmp(f"sub i32 0, {selected}")
            result = self._tmp(f"or i32 {result}, {self._tmp(f'and i32 {term}, {mask}')}")
        self._write(operands[0], result, 32)

    def _op_shf(self, modifiers, operands):
        a, b, amount = (self._read(o, 32) for o in operands[1:4])
        if "clamp" in modifiers:
            amount = self._call("i32", "llvm.umin.i32", [("i32", amount), ("i32", "32")])
        intrinsic = "llvm.fshl.i32" if "l" in modifiers else "llvm.fshr.i32"
        if "clamp" in modifiers:
            full = self._tmp("icmp eq i32 %s, 32" % amount)
            shifted = self._call("i32", intrinsic, [("i32", b), ("i32", a), ("i32", amount)])
            edge = b if "l" in modifiers else a
            self._write(operands[0], self._tmp(f"select i1 {full}, i32 {edge}, i32 {shifted}"), 32)
            return
        self._write(operands[0], self._call("i32", intrinsic, [("i32", b), ("i32", a), ("i32", amount)]), 32)

    def _op_dp4a(self, modifiers, operands):
        self._dot(modifiers, operands, 4, 8)

    def _dot(self, modifiers, operands, count, width):
        kinds = [m for m in modifiers if m in INT_TYPES]
        a, b, c = (self._read(o, 32) for o in operands[1:4])
        total = c
        for lane in range(count):
            values = []
            for word, kind in zip((a, b), kinds[:2]):
                piece = self._resize(self._tmp(f"lshr i32 {word}, {lane * width}"), 32, width)
                values.append(self._resize(piece, width, 32, kind.startswith("s")))
            total = self._tmp(f"add i32 {total}, {self._tmp(f'mul i32 {values[0]}, {values[1]}')}")
        self._write(operands[0], total, 32)

    # -- floating point

    def _op_fma(self, modifiers, operands):
        self._float_map(modifiers, operands, lambda t, a, b, c: self._fcall(t, "llvm.fma", a, b, c), "fma")

    def _float_unary(self, modifiers, operands, opcode):
        intrinsic = _FLOAT_UNARY[opcode]
        self._float_map(modifiers, operands, lambda t, a: self._fcall(t, intrinsic, a))

    def _op_sqrt(self, modifiers, operands):
        self._float_map(modifiers, operands, lambda t, a: self._fcall(t, _FLOAT_UNARY["sqrt"], a), "sqrt")

    def _op_ex2(self, modifiers, operands):
        self._float_unary(modifiers, operands, "ex2")

    def _op_lg2(self, modifiers, operands):
        self._float_unary(modifiers, operands, "lg2")

    def _op_sin(self, modifiers, operands):
        self._float_unary(modifiers, operands, "sin")

    def _op_cos(self, modifiers, operands):
        self._float_unary(modifiers, operands, "cos")

    def _op_rcp(self, modifiers, operands):
        self._float_map(modifiers, operands, lambda t, a: self._tmp(f"fdiv {t} {_one(t)}, {a}"), "rcp")

    def _op_rsqrt(self, modifiers, operands):
        self._float_map(modifiers, operands,
                        lambda t, a: self._tmp(f"fdiv {t} {_one(t)}, {self._fcall(t, 'llvm.sqrt', a)}"))

    def _op_tanh(self, modifiers, operands):
        self._float_map(modifiers, operands, lambda t, a: self._extended(t, "__nv_tanhf", a))

    def _extended(self, name, function, value):
        """A libm function of a float value computed in float."""
        if name in ("float", "double"):
            return self._call(name, function if name == "float" else function[:-1], [(name, value)])
        wide = self._tmp(f"fpext {name} {value} to float")
        result = self._call("float", function, [("float", wide)])
        return self._tmp(f"fptrunc float {result} to {name}")

    def _op_copysign(self, modifiers, operands):
        # copysign.type d, a, b: d gets the magnitude of b and the sign of a
        self._float_map(modifiers, [operands[0], operands[2], operands[1]],
                        lambda t, b, a: self._fcall(t, "llvm.copysign", b, a))

    def _op_testp(self, modifiers, operands):
        ftype, _ = self._lanes(modifiers)
        name = FLOAT_TYPES[ftype][0]
        value = self._float(self._read(operands[1], FLOAT_TYPES[ftype][1], ftype), ftype)
        magnitude = self._fcall(name, "llvm.fabs", value)
        infinity = {"half": "0xH7C00", "bfloat": "0xR7F80", "float": "0x7FF0000000000000",
                    "double": "0x7FF0000000000000"}[name]
        test = next(m for m in modifiers if m in ("finite", "infinite", "number", "notanumber", "normal",
                                                   "subnormal"))
        if test == "finite":
            result = self._tmp(f"fcmp olt {name} {magnitude}, {infinity}")
        elif test == "infinite":
            result = self._tmp(f"fcmp oeq {name} {magnitude}, {infinity}")
        elif test == "number":
            result = self._tmp(f"fcmp ord {name} {value}, {value}")
        elif test == "notanumber":
            result = self._tmp(f"fcmp uno {name} {value}, {value}")
        else:
            raise NotLifted(f"testp.{test}")
        self._write(operands[0], result, 1)

    # -- comparisons and selection

    def _op_setp(self, modifiers, operands):
        result = self._compare(modifiers, operands[1], operands[2])
        combine = next((m for m in modifiers if m in ("and", "or", "xor")), None)
        destinations = operands[0].split("|")
        if combine:
            other = self._read(operands[3], 1)
            positive = self._tmp(f"{combine} i1 {result}, {other}")
            inverse = self._tmp(f"xor i1 {result}, true")
            negative = self._tmp(f"{combine} i1 {inverse}, {other}")
        else:
            positive, negative = result, self._tmp(f"xor i1 {result}, true")
        self._write(destinations[0], positive, 1)
        if len(destinations) > 1:
            self._write(destinations[1], negative, 1)

    def _compare(self, modifiers, left, right) -> str:
        relation = modifiers[0]
        lanes = self._lanes(modifiers)
        if lanes:
            ftype, count = lanes
            if count != 1:
                raise NotLifted("setp on a pair")
            bits = FLOAT_TYPES[ftype][1]
            a = self._float(self._read(left, bits, ftype), ftype)
            b = self._float(self._read(right, bits, ftype), ftype)
            return self._tmp(f"fcmp {_COMPARE_FLOAT[relation]} {FLOAT_TYPES[ftype][0]} {a}, {b}")
        kind, bits = self._int_type(modifiers)
        a, b = self._read(left, bits), self._read(right, bits)
        predicate = _COMPARE_INT[relation]
        if kind != "s" and predicate[0] == "s":
            predicate = "u" + predicate[1:]
        return self._tmp(f"icmp {predicate} i{bits} {a}, {b}")

    def _op_set(self, modifiers, operands):
        kinds = [m for m in modifiers if m in TYPES]
        result = self._compare([modifiers[0], kinds[1]], operands[1], operands[2])
        target = kinds[0]
        if target == "f32":
            value = self._tmp(f"select i1 {result}, i32 1065353216, i32 0")
        else:
            value = self._resize(result, 1, 32, signed=True)
        self._write(operands[0], value, 32)

    def _op_selp(self, modifiers, operands):
        kinds = [m for m in modifiers if m in TYPES]
        bits = _bits_of(kinds[0])
        a, b = self._read(operands[1], bits, kinds[0]), self._read(operands[2], bits, kinds[0])
        condition = self._read(operands[3], 1)
        self._write(operands[0], self._tmp(f"select i1 {condition}, i{bits} {a}, i{bits} {b}"), bits)

    def _op_slct(self, modifiers, operands):
        kinds = [m for m in modifiers if m in TYPES]
        bits = _bits_of(kinds[0])
        a, b = self._read(operands[1], bits, kinds[0]), self._read(operands[2], bits, kinds[0])
        if kinds[1] == "f32":
            c = self._float(self._read(operands[3], 32, "f32"), "f32")
            condition = self._tmp(f"fcmp oge float {c}, 0.0")
        else:
            condition = self._tmp(f"icmp sge i32 {self._read(operands[3], 32)}, 0")
        self._write(operands[0], self._tmp(f"select i1 {condition}, i{bits} {a}, i{bits} {b}"), bits)

    # -- control flow and synchronization

    def _op_bra(self, modifiers, operands):
        self._terminate(f"br label %{self._block_name(operands[0])}")

    def _op_ret(self, modifiers, operands):
        raise NotLifted("ret")

    def _op_trap(self, modifiers, operands):
        self._call("void", "llvm.trap", [])

    def _op_brkpt(self, modifiers, operands):
        pass

    def _op_bar(self, modifiers, operands):
        if modifiers[:1] == ["warp"]:
            self._call("void", "llvm.nvvm.bar.warp.sync", [("i32", self._read(operands[0], 32))])
            return
        if any(m in ("arrive", "red") for m in modifiers) or len(operands) > 1:
            raise NotLifted("bar with a count, arrive or red")
        if operands and operands[0].strip() != "0":
            raise NotLifted("named barrier")
        self._call("void", "llvm.nvvm.barrier.cta.sync.aligned.all", [("i32", "0")])

    _op_barrier = _op_bar

    def _op_activemask(self, modifiers, operands):
        self._write(operands[0], self._call("i32", "llvm.nvvm.activemask", []), 32)

    def _op_shfl(self, modifiers, operands):
        if "sync" not in modifiers:
            raise NotLifted("shfl without .sync")
        mode = next(m for m in modifiers if m in ("up", "down", "bfly", "idx"))
        destination, *predicate = operands[0].split("|")
        value, lane, clamp, mask = (self._read(o, 32) for o in operands[1:5])
        if predicate:
            pair = self._call("{ i32, i1 }", f"llvm.nvvm.shfl.sync.{mode}.i32p",
                              [("i32", mask), ("i32", value), ("i32", lane), ("i32", clamp)])
            self._write(destination, self._tmp(f"extractvalue {{ i32, i1 }} {pair}, 0"), 32)
            self._write(predicate[0], self._tmp(f"extractvalue {{ i32, i1 }} {pair}, 1"), 1)
            return
        result = self._call("i32", f"llvm.nvvm.shfl.sync.{mode}.i32",
                            [("i32", mask), ("i32", value), ("i32", lane), ("i32", clamp)])
        self._write(destination, result, 32)

    def _op_vote(self, modifiers, operands):
        if "sync" not in modifiers:
            raise NotLifted("vote without .sync")
        mode = next(m for m in modifiers if m in ("all", "any", "uni", "ballot"))
        predicate = self._read(operands[1], 1)
        mask = self._read(operands[2], 32)
        if mode == "ballot":
            self._write(operands[0], self._call("i32", "llvm.nvvm.vote.ballot.sync",
                                                [("i32", mask), ("i1", predicate)]),
                        32)
            return
        self._write(operands[0], self._call("i1", f"llvm.nvvm.vote.{mode}.sync", [("i32", mask), ("i1", predicate)]), 1)

    def _op_match(self, modifiers, operands):
        kind = "i64" if "b64" in modifiers else "i32"
        bits = int(kind[1:])
        value, mask = self._read(operands[1], bits), self._read(operands[2], 32)
        if "any" in modifiers:
            result = self._call("i32", f"llvm.nvvm.match.any.sync.{kind}", [("i32", mask), (kind, value)])
            self._write(operands[0], result, 32)
            return
        destination, *predicate = operands[0].split("|")
        pair = self._call("{ i32, i1 }", f"llvm.nvvm.match.all.sync.{kind}p", [("i32", mask), (kind, value)])
        self._write(destination, self._tmp(f"extractvalue {{ i32, i1 }} {pair}, 0"), 32)
        if predicate:
            self._write(predicate[0], self._tmp(f"extractvalue {{ i32, i1 }} {pair}, 1"), 1)

    def _op_isspacep(self, modifiers, operands):
        space = modifiers[0]
        name = {"global": "global", "shared": "shared", "const": "const", "local": "local"}.get(space.split("::")[0])
        if name is None:
            raise NotLifted(f"isspacep.{space}")
        pointer = self._tmp(f"inttoptr i64 {self._read(operands[1], 64)} to ptr")
        self._write(operands[0], self._call("i1", f"llvm.nvvm.isspacep.{name}", [("ptr", pointer)]), 1)


def _operands(text: str) -> list[str]:
    """The comma-separated operands of an instruction, vectors and addresses kept whole."""
    return split_top_level(text, "{[", "}]")


def _syncscope(modifiers) -> str:
    """The LLVM syncscope of a PTX scope modifier (.cta, .gpu or .gl; .sys: none, the widest)."""
    for modifier, scope in (("cta", "block"), ("gpu", "device"), ("gl", "device"), ("cluster", "cluster")):
        if modifier in modifiers:
            return f' syncscope("{scope}")'
    return ""


def _ordering(modifiers, bits: int) -> str:
    """The atomic suffix of a strong ld or st (.relaxed, .acquire, .release at a scope),
    with its alignment; "" for a weak or volatile one. A vector access is one per element,
    each strong (the PTX memory model's reading of a vector access)."""
    orders = {"relaxed": "monotonic", "acquire": "acquire", "release": "release"}
    order = next((orders[m] for m in modifiers if m in orders), None)
    if order is None:
        return ""
    return f"{_syncscope(modifiers)} {order}, align {max(bits // 8, 1)}"


def _vector(operand: str) -> list[str]:
    return [part.strip() for part in operand.strip()[1:-1].split(",")]


def _bits_of(kind: str) -> int:
    if kind in INT_TYPES:
        return INT_TYPES[kind][1]
    if kind in FLOAT_TYPES:
        return FLOAT_TYPES[kind][1]
    if kind in PAIR_TYPES:
        return 32
    if kind == "pred":
        return 1
    match = re.fullmatch(r"[bsuf](\d+)", kind)
    if match:
        return int(match.group(1))
    raise NotLifted(f"type {kind}")


def _int_range(kind: str, bits: int) -> tuple[int, int]:
    if kind == "s":
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _zero(name: str) -> str:
    return {"half": "0xH0000", "bfloat": "0xR0000"}.get(name, "0.0")


def _one(name: str) -> str:
    return {"half": "0xH3C00", "bfloat": "0xR3F80"}.get(name, "1.0")


def _immediate(text: str, bits: int, float_type: str | None = None) -> int:
    """The bit pattern, as a signed integer of `bits`, of a PTX immediate: an integer, a
    0f/0d hexadecimal float, or (for float instructions) a decimal number."""
    text = text.strip()
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if re.fullmatch(r"0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}", body):
        value = int(body[2:], 16)
        return _signed(value ^ (1 << (len(body[2:]) * 4 - 1)) if negative else value, bits)
    if float_type in FLOAT_TYPES and re.fullmatch(r"\d+\.?\d*(?:[eE][-+]?\d+)?", body):
        value = -float(body) if negative else float(body)
        code = {"f16": ("<e", "<H"), "f32": ("<f", "<I"), "f64": ("<d", "<Q")}.get(float_type)
        if code is None:
            raise NotLifted(f"operand {text}")
        return _signed(struct.unpack(code[1], struct.pack(code[0], value))[0], bits)
    match = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9]\d*)[uU]?", body)
    if not match:
        raise NotLifted(f"operand {text}")
    number = int(match.group(1), 0) if not re.fullmatch(r"0[0-7]+", match.group(1)) else int(match.group(1), 8)
    return _signed(-number if negative else number, bits)


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if bits > 1 and value >= 1 << (bits - 1) else value
