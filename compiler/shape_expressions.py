"""The small integer expressions qdot-bench takes for --grid and --flops (``cdiv(m,128)*cdiv(n,128)``,
``2*m*n*k``), over the kernel's scalar parameters by name.

A grid is arithmetic on the shape, and the example files state theirs that way; asking for the
number instead would have the user do the kernel's tiling in their head for every shape. The
text comes from a command line, so it is never handed to ``eval``: ``ast`` parses it and a walk
over a whitelist of node kinds (integer constants, names, + - * //, cdiv, min, max) checks every
node before any is evaluated, and refuses the rest with the part of the text it did not take.
It is apart from the command line so that the grammar has one definition, which the error
messages state (``EXPRESSION_GRAMMAR``) and the tests exercise; it needs nothing beyond ``ast``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass


class ExpressionError(Exception):
    """A --grid / --flops expression that is not one, or that cannot be evaluated."""


_BINARY_OPERATORS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
}
_FUNCTIONS: dict[str, Callable[[int, int], int]] = {
    "cdiv": lambda a, b: -(-a // b),
    "min": min,
    "max": max,
}
EXPRESSION_GRAMMAR = "integers, names, + - * //, parentheses, cdiv(a, b), min(a, b), max(a, b)"


@dataclass(frozen=True)
class Expressions:
    """One to ``limit`` comma-separated integer expressions, parsed with ``ast`` and evaluated
    by walking a whitelist of node kinds: never ``eval``."""

    option: str
    text: str
    nodes: tuple[ast.expr, ...]

    MAX_LENGTH = 1000
    """Characters an expression may have: a grid or a FLOP count is a line, and Python's parser
    runs out of stack on expressions thousands of terms deep."""
    MAX_DEPTH = 500
    """Nesting an expression may have, in nested terms: within MAX_LENGTH, 998 unary minus signs
    nest deep enough to exhaust the stack of this module's recursive walks, so the depth is measured
    (without recursing) before them. 500 still takes any chain of binary operators that fits in
    MAX_LENGTH (each takes two characters at least)."""

    @staticmethod
    def parse(option: str, text: str, limit: int) -> "Expressions":
        if len(text) > Expressions.MAX_LENGTH:
            raise ExpressionError(f"{option} is {len(text)} characters long; an expression may have at most "
                                  f"{Expressions.MAX_LENGTH}")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except (SyntaxError, RecursionError, MemoryError) as err:
            raise ExpressionError(f"{option} '{text}' is not an expression: "
                                  f"{getattr(err, 'msg', None) or 'nested too deeply'}") from None
        body = tree.body
        nodes = tuple(body.elts) if isinstance(body, ast.Tuple) else (body,)
        if not 1 <= len(nodes) <= limit:
            most = ("one", "two", "three")[limit - 1] if limit <= 3 else str(limit)
            want = "one expression" if limit == 1 else f"one to {most} comma-separated expressions"
            raise ExpressionError(f"{option} '{text}' must be {want}, got {len(nodes)}")
        expressions = Expressions(option, text.strip(), nodes)
        if (depth := _depth(body)) > Expressions.MAX_DEPTH:
            raise ExpressionError(f"{option} '{text}' is nested {depth} levels deep; an expression may nest at most "
                                  f"{Expressions.MAX_DEPTH}")
        for node in nodes:
            expressions._check(node)
        return expressions

    def names(self) -> set[str]:
        functions = {id(n.func) for node in self.nodes for n in ast.walk(node) if isinstance(n, ast.Call)}
        return {n.id for node in self.nodes for n in ast.walk(node)
                if isinstance(n, ast.Name) and id(n) not in functions}

    def _segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ast.dump(node)

    def _refuse(self, node: ast.AST, why: str) -> ExpressionError:
        return ExpressionError(f"{self.option} '{self.text}': {why} '{self._segment(node)}' "
                               f"(an expression takes {EXPRESSION_GRAMMAR})")

    def _check(self, node: ast.AST) -> None:
        """Refuse any node outside the grammar before anything is evaluated."""
        if isinstance(node, ast.Constant):
            if type(node.value) is not int:
                raise self._refuse(node, "only integer constants are allowed, got")
        elif isinstance(node, ast.Name):
            pass
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY_OPERATORS:
                hint = " (integer division is //)" if isinstance(node.op, ast.Div) else ""
                raise self._refuse(node, f"unsupported operator{hint} in")
            self._check(node.left)
            self._check(node.right)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            self._check(node.operand)
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
                raise self._refuse(node, "unknown function in")
            if node.keywords or len(node.args) != 2 or any(isinstance(a, ast.Starred) for a in node.args):
                raise self._refuse(node, f"{node.func.id} takes two arguments, in")
            for arg in node.args:
                self._check(arg)
        else:
            raise self._refuse(node, "unsupported syntax")

    def evaluate(self, env: Mapping[str, int]) -> tuple[int, ...]:
        return tuple(self._value(node, env) for node in self.nodes)

    def _value(self, node: ast.AST, env: Mapping[str, int]) -> int:
        if isinstance(node, ast.Constant):
            return int(node.value)
        if isinstance(node, ast.Name):
            if node.id not in env:
                known = ", ".join(env) or "none"
                raise ExpressionError(f"{self.option} '{self.text}': unknown name '{node.id}' "
                                      f"(the kernel's integer parameters: {known})")
            return env[node.id]
        if isinstance(node, ast.UnaryOp):
            value = self._value(node.operand, env)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp):
            left, right = self._value(node.left, env), self._value(node.right, env)
            if isinstance(node.op, ast.FloorDiv) and right == 0:
                raise ExpressionError(f"{self.option} '{self.text}': '{self._segment(node)}' divides by zero")
            return _BINARY_OPERATORS[type(node.op)](left, right)
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        a, b = (self._value(arg, env) for arg in node.args)
        if node.func.id == "cdiv" and b == 0:
            raise ExpressionError(f"{self.option} '{self.text}': '{self._segment(node)}' divides by zero")
        return _FUNCTIONS[node.func.id](a, b)


def _depth(root: ast.AST) -> int:
    """How deeply ``root``'s terms (``ast.expr`` nodes: a frame each of the walks) nest, by an explicit stack,
    since the recursive walks are what it guards."""
    deepest, stack = 0, [(root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr))
    return deepest
