"""The static half: decide race freedom of a kernel for every launch.

`model` turns a kernel's decoded IR (interpreter.decode, the tables the interpreter runs)
into symbolic accesses of one thread: for each barrier interval, every load, store and
atomic as (base object, byte offset as a bit-vector expression, size, kind, path
condition) over symbolic thread and block indices, launch dimensions and scalar
parameters; what it cannot express is a fresh unconstrained value. `solve` asks z3, for
two arbitrary threads, whether two accesses can conflict or the threads can disagree on a
barrier.

`equivalence` decides two versions of a kernel equal for every launch: for race-free
versions whose loops carry nothing through memory from one iteration to the next, whether
some launch, arguments and inputs make them leave different bytes in an output buffer
(PUG_para's parameterized equivalence check; `simulee equiv`).

`verdicts` joins the prover to the checker: it runs the prover before every check, and the
races the solver finds in the interpreter, to tell a confirmed race from a possible one.
`cache` keeps the verdicts of its proofs between runs, beside the compile cache.
The interpreter never imports this package.

May import: simulee.errors, simulee.checker, simulee.report, simulee.detect, simulee.model, simulee.frontend,
interpreter, evolve.
"""
