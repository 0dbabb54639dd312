// Package python is the Python front end of the call graph: a callgraph.Language that
// parses Python files with tree-sitter (github.com/smacker/go-tree-sitter and its Python
// grammar), lists their definitions with exact byte spans, resolves call sites across the
// files of a project, and measures each definition's complexity.
//
// # Definitions (nodes)
//
// A definition is a module-level function, a method (a function defined directly in a
// class body), a nested function, a class, or the module pseudo-definition
// `path::<module>` holding the file's module-level code (reported only for files with
// module-level call sites). Async and decorated definitions are definitions like the
// others. Qualified names are joined with "." through enclosing classes and functions
// (`Outer.method.inner`); when one file holds several definitions with the same qualified
// name (redefinitions, alternatives under if/else), every one of them gets the ID suffix
// `@<line>` (the line of its def/class keyword; `@<line>.<n>` for the n-th one on a line,
// which only syntax-error recovery produces). Lambdas are not definitions: a lambda is
// folded into the enclosing definition, whose node owns the calls in its body. A lambda
// is still a function value: its parameters take the arguments of the calls that reach
// it and a call of it returns its body's value (a call reaching a lambda makes no edge).
//
// Spans follow Python's ast: Def runs from the first decorator's "@" (or the def/class
// keyword, or "async") to the end of the last token of the body (trailing comments
// excluded), Signature from the def/async/class keyword through the header's colon, Doc is
// the docstring literal (the first statement, when it is a string literal that is neither
// an f-string nor bytes, as ast.get_docstring sees it), Body from the first statement to
// the end of the last. Line/EndLine equal ast's lineno/end_lineno, DecoratorLine the first
// decorator's line.
//
// # Edges and resolution
//
// An edge (f, g) means that f contains a call site that resolves to g; the graph is built
// from syntax and a flow-insensitive abstract interpretation of names, so it is neither
// sound nor complete: calls through reflection (getattr with a computed name, eval), through values
// of unknown origin, and to code outside the analysed files are missed, and an
// approximation may add an edge that never happens at run time. Calls to builtins and
// third-party code are counted in Analysis.Unresolved, never as errors.
//
// Resolution, in this order (docs/callgraph.md describes it for every language):
//
//  1. Lexical scopes: function locals, enclosing functions, module globals (class bodies
//     are not enclosing scopes), `global` declarations; builtins are not nodes. A name
//     bound several times in one scope resolves to the last unconditional binding before
//     the use plus any conditional (if/for/while/except/match) binding after it; uses
//     from nested scopes see the scope's final bindings.
//  2. Imports: `import a.b`, `import a.b as c`, `from m import f as g`, relative imports,
//     re-exports through `__init__.py`, and `import *` (names in `__all__` when the module
//     defines it as a literal list or tuple, else its public names). Module names come from
//     file paths: a directory with `__init__.py` is a package, and the dotted name of a
//     file is taken from its outermost enclosing package; the full path from the root and
//     the path below a leading `src/` or `lib/` directory are fallbacks (namespace packages,
//     src layouts). Relative imports are resolved by directory.
//  3. `self.m()` and `cls.m()` through the enclosing class and its bases in C3 order
//     (bases outside the project are left out). With value flow (level 7), self and cls
//     also take the subclasses a method is called on, so a base-class method calling
//     self.m() reaches each subclass's override; self then stands for the enclosing class
//     itself only when that class is instantiated in the project or no subclass instance
//     flows in. `super().m()` continues after the method's class in the C3 order of the
//     class of self, as Python does: in a mixin it reaches the next class of the
//     subclass's order, not the mixin's own base. When neither the class nor a class of
//     its order binds the name (a method left to the subclasses, as in a template
//     method whose base is reached only as a bound method handed elsewhere), self.m
//     is looked up in each project subclass that binds it, unless a class of the order
//     has a base outside the project other than object and abc.ABC. When self.m() reaches
//     only abstract steps (methods whose body starts, after the docstring, by raising
//     NotImplementedError), the method's class is never constructed in the analysed
//     files and no subclass instance flows into the method, self is an instance of a
//     subclass: the call reaches m as each instantiated subclass (or, when none is, each
//     subclass) resolves it. This is decided after the rounds of value flow, once every
//     instantiation has been seen, and no argument flows from it.
//  4. A call of a class `C()` is an edge to the `__new__` and `__init__` that C's order
//     gives, when they are in the project. A dataclass (@dataclass) or an attrs class
//     (@attr.s, @attrs.define, @define ...) without its own __init__ gets the one the
//     library writes (none with init=False: the order's __init__ applies): its fields (annotated names; attr.ib()/field() assignments) become
//     parameters whose arguments flow into the instance attributes, and the call is an
//     edge to __post_init__ / __attrs_post_init__; the generated __init__ itself is not a
//     node. A class without any of these in the project (object.__init__ or a third-party
//     base) makes no edge: the call counts as unresolved. Instances flow through
//     assignments (`x = C(); x.m()`), and so do functions (`x = f; x()`).
//  5. Decorators: the scope defining a decorated function or class calls each decorator
//     (from the innermost to the outermost); the edge starts at the definition enclosing
//     the decorated one, or at the module. A decorator of a method in a class body is
//     called by the code enclosing the class: class bodies are not callers, their calls
//     belong to the enclosing function or module. A decorator from outside the project
//     that turns the function into a library object running the body later makes a call
//     of the decorated name no edge: hypothesis's @composite, wrapt's @decorator (and the
//     decorator package's @decorator), whose decorated wrapper called with a function
//     wraps it and runs no line of the body.
//  6. Guessing, an explicit option (Options.Guess): by default (GuessNone) a method
//     call obj.m() on a receiver of unknown value makes no edge, whatever methods named m
//     the project has; only value flow decides. GuessUnique resolves it to the project's
//     method named m when that name is unique (code2flow's rule), GuessAll to every method
//     of that name. A receiver with a known value is never guessed about.
//  7. Value flow (on unless Options.NoValueFlow): arguments flow into the parameters of
//     the resolved callees (positional, keyword, defaults; *args and **kwargs are not
//     followed), return values flow out of calls (calling a generator function returns a
//     generator, whose iteration yields the values of its yield expressions), attributes
//     assigned through self in any method are instance attributes, also when stored as
//     self.__dict__['name'] = v (one that __init__ always sets shadows a class attribute
//     of the same name), attributes assigned from
//     outside (obj.x = v, C.x = v) are attributes of obj's classes, and list, tuple and
//     dict literals indexed by constants (literals, or names and imported names bound only
//     to literals; parameters are not narrowed, since outside callers pass other values)
//     yield their elements, as do values stored into them later (x[k] = v, append, insert,
//     extend, update, setdefault), constant slices and iteration over literals (a tuple
//     loop target, `for rank, fn in pairs:`, takes each element's items by position), and what
//     dict(literal), dict(k=v), x.copy(), x.get(k, d), x.pop(k, d), x.setdefault(k, d),
//     x.values() and x.items() give on such a literal (a dispatch table `VALIDATORS =
//     dict(validators)` read with `.get(keyword)` calls its functions); dict(pairs) and
//     collections.OrderedDict(pairs) of a list or tuple literal of (key, value) pair
//     literals are a dict of those pairs;
//     staticmethod(f) and classmethod(f) in a class body are f; tuples returned by calls
//     are unpacked element-wise. A decorated name evaluates to what its
//     decorators return when they are project functions returning project functions (a
//     wrapper, the function itself handed back), as Python binds it; when a decorator lies
//     outside the project (functools, a framework) or is a project class (its instances'
//     __call__ dispatch is often opaque), the definition is kept as the callee. The
//     positional arguments a call passes beyond a function's positional parameters flow
//     into its *args parameter as one tuple per call site (`func, args = args[0],
//     args[1:]` takes the first); **kwargs is not followed, except that
//     kwargs.get(k, default) and kwargs.pop(k, default) on the **kwargs parameter may
//     give their default. functools.partial(f, ...)
//     evaluates to f, its calls' argument positions unknown (no arguments flow);
//     copy.copy(x) and copy.deepcopy(x) of the standard library (the name copy bound
//     outside the project) evaluate to x's values; a list or set comprehension or a
//     generator expression whose element is a call, `[Parameter(r, t) for t in tags]`,
//     is a sequence of the instances that call constructs of the classes its callee
//     names (any other element leaves it unknown); a dict comprehension whose value is
//     the name its for clause binds to each element of a list, tuple or set literal,
//     `{cls.managed_type(): cls for cls in [A, B]}`, is a dict of those elements with
//     unknown keys (any other dict comprehension is unknown); list(), set() and dict()
//     of the builtins with no argument are empty containers, as [] and {} are (what is
//     stored into them later is their elements); x[k] on an
//     instance of a project class whose order defines __getitem__ evaluates to what that
//     method returns (not for slices); a call's result specialised to its call site
//     follows a parameter the callee rebinds (`func = registry.checks(name)(func)`; return
//     func): the argument and the rebinding values, with the argument in place of the
//     parameter there too. A value flowing around a cycle of calls and returns (a
//     function's result passed back into its own parameter through other functions)
//     reaches every site of that function's body: the expressions of the body that the
//     cycle cut short are evaluated again once its head's values are known;
//     functools.reduce(f, xs) and itertools.starmap(f, xs) call f on behalf of their
//     caller, as map does; a parameter whose default is a builtin (`def fold(...,
//     map=map)`) may be that builtin, and a method named like a builtin (`def set(self,
//     ...)`) hides it from the class body only, not from the methods (whose enclosing
//     scopes skip class bodies). isinstance narrows local names and parameters:
//     inside `if isinstance(x, C):` x holds only instances of C (a class or a tuple of
//     classes; an outside class keeps only what may be its instance, and for
//     collections.abc's Sequence, MutableSequence, Mapping and MutableMapping, typing's
//     aliases, and list, tuple and dict, an instance of a project class whose bases
//     outside the project are all such classes is decided by inheritance), in the elif and
//     else clauses no instance of C, and after an if whose body always leaves (return,
//     raise, continue, break, or an if statement with an else clause all of whose
//     blocks leave) and has no else, none up to the end of the enclosing block
//     (`not isinstance` swaps them); an assignment inside a branch still reaches the code
//     after the statement. When an if with no else clause does not leave but its body
//     rebinds x at its own level (`if isinstance(href, DecodedURL): href = href._url`),
//     what reaches past the statement is the body's bindings and x narrowed the other
//     way. Where nothing is known of a local name that is not a
//     parameter (an exception caught as an outside class, an item read back from a dict
//     of dicts), `if isinstance(x, C):` makes x an instance of C there (C itself when it
//     is instantiated or has no subclass, and its instantiated subclasses); and `except
//     C as e:` binds e to an instance of the project classes C (or a tuple) names, and,
//     for a class the project never instantiates itself (a base of its errors), to
//     instances of the subclasses it instantiates.
//     `x is C`, `x == C`, `x in (C, D)` (a literal tuple or list) and their negations
//     narrow x the same way by identity: the classes and functions x holds that are
//     (or are not) among those values stay, its other values (instances, whose __eq__
//     may say anything) stay whatever the test (h11's `if our_role not in (CLIENT,
//     SERVER): raise ValueError(... our_role)`). A truth test `if x.flag:` narrows the
//     instances x holds by a class-level constant flag (True, False, None, a number or a
//     string literal bound in the body of the first class of the order that binds it,
//     which no instance or outside assignment sets): where the test holds only the
//     classes whose flag is true stay, in the elif and else clauses only the others
//     (qrcode's `if im.needs_context: im.drawrect_context(...)`). Where the truth test
//     of a name fails (`if not x:`, the else of `if x:`), x holds none of the values
//     that are always true: functions, modules, classes without a project metaclass,
//     and instances of classes whose order is all project classes (besides object)
//     none of which binds __bool__ or __len__ (websocket's `if not frame: raise
//     ...("%s" % frame)`). `hasattr(x, "a")` narrows as isinstance does, by whether x's
//     class binds a (or its __init__ always sets it); an attribute other methods may set
//     (a lazy cache), a base outside the project or a __getattr__ leaves x unnarrowed.
//     In a boolean operation whose left operand is such a test of a name a function or
//     lambda binds, the right operand sees the name narrowed: `isinstance(x, C) and
//     x.m()` (pycadf's validator lambdas) and `not isinstance(x, C) or x.m()` call m on
//     C instances only, the other two forms on the rest. In the body of an if or elif
//     clause testing `x.__class__.__name__ == 'N'` or `type(x).__name__ == 'N'`, x is an
//     instance of the project classes named N, whatever flowed into it (castellan's
//     credential branches); a name no project class bears gives nothing. Attributes (`isinstance(self.curve, C)`) are not narrowed,
//     and type(self)(...) is not followed. self.__class__(...) called in a method
//     constructs the method's class when something else instantiates it, and the
//     subclasses whose instances are seen flowing into self (or, when neither, the
//     subclasses the project instantiates; statsd's PipelineBase.pipeline). getattr(x, k) is x.<k> for each string constant
//     k may hold: a literal, a name bound only to constants, a loop variable over a literal
//     of constants, or an item taken by position from the literal pairs a loop iterates
//     (`for name, label in (("a", "A"), ("b", "B")): getattr(x, name)`); for a k built
//     around unknown parts (see below) it is each attribute of k's constant prefix and
//     suffix that the classes of x's values bind, abstract steps (bodies raising
//     NotImplementedError) left out; a bytes concatenation counts only once decoded
//     (`(cmd.name + b"_handler").decode()`), and getattr(obj.__class__, k) looks k up
//     on the classes of obj's instances. globals()[k] and globals().get(k)
//     (the builtin, not rebound) select the module's names: for a string constant k
//     that name; for a k built around unknown parts
//     (`"%sCommand" % name`, `"on_" + event + "_hook"`, or a name bound only to such
//     strings) the classes and functions bound at the module's level (defined or
//     imported) whose names have k's constant prefix and suffix; for any other k
//     nothing (every function of the module would be a guess). Parameters
//     are merged over all call sites (context-insensitive), with one exception for what a
//     call returns: a function that returns one of its parameters unchanged returns, at
//     each call, that call's own argument, which keeps identity functions and decorators
//     precise; and a return expression computed from parameters (`return
//     io_dict.get(key)`, `return table[k](*args)`, at most 48 nodes) is evaluated at each
//     call with the names of the parameters replaced by that call's arguments (or
//     defaults), falling back to the merged values of a parameter whose argument
//     evaluates to nothing. Calls inside such a specialised result are not specialised
//     again (one level of call-site sensitivity). A returned local bound once to a
//     getattr, and the local holding that getattr's name, are expanded in the copy, and
//     `"literal".format(...)` fills its fields with the constants its arguments hold:
//     cerberus's `methodname = '_{0}_{1}'.format(domain, rule)`, `result =
//     getattr(self, methodname, None)`, `return result` gives, at a call passing
//     'validate', the methods named `_validate_*` (the merged result, whose domain is
//     unknown, follows no name). Arguments are
//     propagated to a fixpoint in at most four rounds. Abstract value sets are capped at
//     32 values, or 64 when the extra ones are functions (dispatch tables). A call
//     whose arguments cannot bind to a callee's signature does not reach it (the call
//     raises TypeError first): a keyword no parameter takes (without **kwargs), more
//     positional arguments than positional parameters (without *args), a parameter
//     without default left unfilled. Calls with *args or **kwargs, implicit calls,
//     lambdas and decorated callees are not checked, nor a module function reached
//     through an attribute (it may be a class attribute's alias, bound to the instance).
//
// Calls the syntax makes without parentheses are call sites too, as the data model
// dispatches them (special methods are looked up on the class, through its order):
//
//   - iteration: a for loop, a comprehension, and the builtins that iterate (list, tuple,
//     set, frozenset, sorted, enumerate, zip, sum, any, all, dict, and the iterables of
//     map and filter) call the iterable's __iter__ and the __next__ of what it returns
//     (the loop variable takes __next__'s results, or the values a generator __iter__
//     yields); `async for` calls __aiter__/__anext__;
//   - `with E as t` calls E's __enter__ and __exit__ and binds t to __enter__'s result
//     (`async with`: __aenter__, __aexit__), or, when E is the generator of a generator
//     function under a context-manager decorator (@contextmanager), to what it yields;
//     `raise C` of a class instantiates it;
//   - operators: a + b calls a's __add__; b's reflected __radd__ only when a is a literal
//     or every value a may have is known and none has __add__ (a of unknown value makes
//     no guess); a += b calls __iadd__, or __add__ without it; -a, +a, ~a call __neg__,
//     __pos__, __invert__; comparisons call __lt__, __le__, __eq__... with their
//     reflections, != falls back to __eq__, `in` calls the container's __contains__
//     (falling back to __iter__, then __getitem__);
//   - subscripts: x[k] calls __getitem__, x[k] = v __setitem__, del x[k] __delitem__;
//   - conversions: str(x), print(x), "%s" % x and f"{x!s}" call __str__; repr(x), "%r"
//     and {x!r} call __repr__; format(x), f"{x}" and "...".format(x) call __format__;
//     a truth test (if, while, and, or, not, assert, bool()) calls __bool__, else __len__;
//     len, hash, next, int, float, abs, reversed, bytes call their special method;
//     list, tuple and sorted also call __len__ (after __iter__: CPython asks the length
//     for a size hint). Where a class lacks the method and object's default delegates
//     (object.__str__ calls __repr__, object.__format__ calls str), the delegate is
//     called, unless a base of the class lies outside the project (it may define the
//     method itself). On a class object, these are the special methods of its project
//     metaclass (`metaclass=M` in its statement or a base's, a `@six.add_metaclass(M)`
//     decorator, or a base made by six.with_metaclass(M) or future.utils's; type, the
//     base of a metaclass, defines no __str__ or __format__, so the delegation
//     applies). The class statement itself calls that metaclass (its __new__ and
//     __init__) from the defining scope, also when the metaclass is a base's. A special method that no
//     call names on an instance of a subclass runs on the instances of the
//     instantiated subclasses that inherit it, as these implicit calls pass no
//     receiver; when calls do name it on some subclass instances, it runs on those and
//     on the instantiated subclasses that inherit it whose instances are passed to a
//     method of an object outside the project (a WSGI middleware handed to webob's
//     req.get_response(app), which calls it). When the method's class is never
//     constructed in the project and no call names the method on an instance, self
//     is an instance of those subclasses only, not of the class itself (an implicit
//     call on self then reaches the subclasses' overrides, not the base's abstract
//     step). A method declared abstract
//     (@abc.abstractmethod) is not reached through an instance, explicitly or
//     implicitly: an instance whose class resolves the name to it is of a class that is
//     never instantiated; a call naming it on super() or on a class is kept;
//   - properties: reading obj.p where p is a property (@property, @cached_property,
//     p = property(fget, fset), p = factory(...) where the project function factory
//     returns property(fget, ...)) of obj's class or of a class in its order (a mixin)
//     calls the getter, and gives what it returns; obj.p = v calls the setter, del obj.p
//     the deleter; super().p reads the next class's property. A property with a setter
//     is a data descriptor: `self.p = v` (in __init__ or elsewhere) stores no instance
//     attribute p, so reading self.p gives the getter's result, not v;
//   - descriptors: a class attribute holding an instance of a project class that defines
//     __get__, __set__ or __delete__ (`default = DefaultProperty('default')` in a class
//     body, or `C.title = FieldProperty(...)` from outside): reading it on an instance or
//     on the class calls __get__ and gives what __get__ returns, assigning it on an
//     instance calls __set__, deleting it __delete__. These are call sites of the rounds
//     of level 7: the instance (None when read on the class) flows into the method's
//     second parameter and the class or the assigned value into its third. A descriptor
//     with __get__ and __set__ or __delete__ wins over the instance's attributes; one
//     with __set__ only leaves reads to them; one with __get__ only loses to an
//     attribute __init__ always sets. The attribute names are found by the scan before
//     parsing (`name = D(...)` or `obj.name = D(...)` for a class D whose body, or a
//     base's by name, defines a descriptor method) and, in a project with such a class,
//     a method under a decorator mentioning property other than the builtin ones, whose
//     name holds what its decorators return (toolz's @instanceproperty returns an
//     InstanceProperty); the getter that a property subclass's __get__ reaches through
//     property.__get__ (library code) is not followed. `setattr(x, NAME, v)` with the
//     builtin setattr assigns x.<NAME> for each string constant NAME holds (a literal or
//     a name bound only to constants), calling __set__ as the assignment would (pycadf's
//     `setattr(self, EVENT_KEYNAME_ID, id)`);
//   - hashed keys: `x[k]` (read, store or delete) with k an instance of a project class
//     that defines __hash__ calls it, unless x evaluates to a list or tuple literal or to
//     a project instance whose class defines the subscript's special method (x is taken
//     for a mapping: zope.schema's `ttree[term] = ...` keyed by SimpleTerm);
//   - a module's own __getattr__ (PEP 562): `from M import ...` with M a module of the
//     project that is not a package and defines a module-level __getattr__ calls it
//     (the import's lookup of M.__path__ falls back to it; jsonschema's validators.py);
//   - an instance's __getattr__ fallback: reading an attribute of an instance whose class
//     (or a class in its order) defines __getattr__ calls it when the attribute is surely
//     missing: no class of the order binds it, no code stores it on the instances or the
//     class, no other project code assigns an attribute of that name, no class of the
//     order has a base outside the project, and it is no special name (qrcode's
//     PilImage forwarding `im.show()` to the PIL image);
//   - attribute hooks: reading, assigning or deleting an attribute of an instance whose
//     class (or a class in its order) defines __getattribute__, __setattr__ or
//     __delattr__ calls that method, its own methods' `self.x` included
//     (zope.deprecation's DeprecationProxy). Only receivers that evaluate to instances
//     of such a class give the edge: an unknown receiver gives none;
//   - attributes of modules outside the project that the project assigns (oslo.i18n's
//     `gettext.find = cached_find`): reading the attribute through a name bound only to
//     an import of that module (`gettext.find(...)`) gives the stored values besides the
//     library's own, except in the storing module's module-level code above the store;
//   - sys.modules entries the project stores (zope.deprecation's `sys.modules[modname] =
//     DeprecationProxy(...)`): reading `sys.modules[key]` with the same key (the same
//     constant or name) in the same function or module body gives the stored values
//     besides the interpreter's modules; reads elsewhere give none of them.
//
// Builtins that call their function arguments do so on behalf of their caller: map and
// filter call the function, sorted, min, max and a list's sort call the key= function,
// with the elements of the iterables as arguments (unless the builtin's name is
// rebound); iterating what map returns gives the function's results, and filter,
// sorted, reversed, list, tuple, set, frozenset and iter return the elements of their
// argument. Implicit calls are only recorded where the project defines the special
// method or a property of that name (a scan of the sources before parsing), and are
// resolved once, over the values the rounds of level 7 found: their arguments do not
// flow into the special methods' parameters (`with` statements and descriptors excepted:
// theirs are call sites of the rounds). Conversions, comparisons and truth tests
// consider names, attributes and subscripts only, not what calls return.
//
// Analysis.CallSites counts every call expression plus one synthetic call per decorator
// application and each implicit call above that reaches project code (the others are not
// counted); super() and calls of builtins count as unresolved. Calls is deduplicated by
// (caller, callee, line).
//
// Compared with PyCG, the reference of this style of analysis: lambdas are not nodes;
// class nodes exist (spans, metrics) but receive no edges, since a class call is an edge
// to its __init__; attributes assigned on objects other than self
// are tracked per class, not per object (obj.x = f applies to every instance of obj's
// classes), except that an assignment replacing a method the class defines is ignored
// (freezing or mocking an object would otherwise redirect every call of that method);
// assignments to module attributes (module.x = f) are not tracked; calls of builtins are
// not edges; reading a property is a call edge to its getter (PyCG has none); implicit
// calls of special methods are edges.
//
// # Metrics
//
// Metrics cover a definition's own text from its def/class line (decorators excluded) to
// its end, nested definitions included; the module's cover the whole file.
//
//   - CodeLines is Breakpoint's definition: the number of lines in that range on which a
//     token other than a comment or a newline starts, as Python 3.11's tokenize sees them
//     (a string literal, f-strings included, is one token at its first line; a backslash
//     continuation is not a token). Breakpoint's released code counted one more line, the
//     end marker of the tokenized function: Metrics.CompatCodeLines.
//   - Cyclomatic is 1 + the decision points: if and elif, for and while statements,
//     except clauses, each `and`/`or` operator, conditional expressions, comprehension
//     `if` clauses and match `case` clauses. Comprehension `for` clauses, `else` and
//     `finally` are not decision points.
//   - Halstead: operators are all keyword and punctuation tokens (`def`, `return`, `(`,
//     `)`, `.`, `=`, `+`, `:` ...), operands are identifiers and literals (numbers, True,
//     False, None, and each string literal as one token, f-strings included). This counts
//     more operators than radon, which counts only the AST's operator nodes.
//   - Nesting is the depth of the deepest compound statement (if, for, while, try, with,
//     match, nested def or class) in the definition's body; 0 for straight-line code.
//   - Lines is EndLine − DecoratorLine + 1.
//
// # Errors and limits
//
// A file that does not parse cleanly still yields the definitions and calls tree-sitter
// recovered, and a *callgraph.SyntaxError with the 1-based line and column of the first
// ERROR or MISSING node. Arbitrary bytes (binary, invalid UTF-8) never make the front end
// panic; a file over 4 GiB (tree-sitter's limit) is reported as a *callgraph.SyntaxError
// at 1:1 and analysed as empty. A line that would open a 100th level of indentation is a
// *callgraph.SyntaxError "too many levels of indentation" at that line, as CPython
// reports it (tree-sitter has no such limit, and past 255 levels its grammar silently
// loses definitions, so such a file must not pass as clean). Match claims .py files only (stubs, .pyi, would add
// duplicate definitions). A Frontend is safe for concurrent use:
// each Analyze parses on its own workers, each owning one tree-sitter parser that it
// closes, and no tree outlives the parse of its file.
//
// # Cost
//
// On the installed networkx package (≈165k lines, 7,150 definitions, 42k edges), measured
// with
//
//	go test ./callgraph/python -run '^$' -bench 'AnalyzeNetworkx$|ParseOnlyNetworkx$' -benchtime 2x -count 2
//
// one worker builds the call graph in about 2.15× the CPU time of parsing the same files
// with go-tree-sitter alone (best of two, load average ≈8 on 2 cores; 2.06× before the
// *args, functools and isinstance rules). Of the analysis's CPU time, about 45% is
// tree-sitter's parse, 13% the C walk that flattens each tree into the collector's nodes,
// 11% collecting the facts, 18% resolution and 8% garbage collection. Peak resident memory
// is about 180 MB.
//
// Operator-heavy code costs more: on sympy (753k lines), bench/pycg measures about 2.6–2.7×
// the CPU time of parsing and 0.95–1.05 GB peak, 0.86M edges (bench/pycg/README.md says
// where the memory goes; 1.8–1.9 GB before issue 16's round 5 compacted the facts):
// most arithmetic, comparison and attribute read in sympy is a call of Expr's special
// methods or of a property. Syntax trees do not outlive their file's collection; the
// facts (symbolic expressions of 32 bytes, call sites, bindings) live until resolution
// ends and are released before the report is built.
package python
