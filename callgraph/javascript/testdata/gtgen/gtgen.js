#!/usr/bin/env node
// gtgen writes the ground-truth call graph of a JavaScript/TypeScript project as the
// TypeScript compiler's type checker sees it, with nodes named the way faultline's
// callgraph/javascript front end names them.
//
// Usage:
//
//   node gtgen.js -root DIR -package NAME -version V [-source TEXT] [-out FILE] FILE...
//
// FILE... are slash paths relative to DIR (the files the front end is given). The
// program is created with allowJs (checkJs off: the checker still infers types of
// JavaScript, it only reports no errors), noEmit, module resolution "node", and a
// compiler host that hides every file under DIR that is not listed, so a declaration file
// shipped beside the sources cannot stand in for them.
//
// Nodes. A naming pass over each file's syntax tree assigns every function-like node that
// the front end treats as a definition its qualified name (see ../../doc.go, "Nodes"):
// function declarations, class members (constructor, methods, accessors, fields holding a
// function; a class is named by its binding, its own name or `<class>`), functions bound
// to a variable, assigned to a property path, to `this.k` in class code (`Class.k`), to
// `module.exports` or `exports.k`, members of an object literal bound to a name or to
// `module.exports`, anonymous default exports (`default`); nested definitions are
// prefixed by the enclosing definition's name. Every other function (callbacks, IIFEs,
// methods of unbound object literals) is folded into its enclosing definition. Repeated
// names in a file get `@line` (and `:column` when they share a line).
//
// Edges. For every call, new and tagged-template expression in a file, the caller is the
// nearest enclosing named definition (or `<module>`); the callee is the declaration of
// the signature the checker resolves for the expression (checker.getResolvedSignature),
// or, when that has no declaration, the value declaration of the callee expression's
// symbol with import aliases followed. An edge is printed when both ends are definitions
// of the listed files. Calls whose target the checker types as `any` (values passed as
// parameters without JSDoc types, dynamic property access, call/apply/bind) give no edge.
//
// Output: `package NAME VERSION`, an optional `source TEXT` line, one `file` line per
// file, one `def ID` line per definition (the inventory), one `edge CALLER CALLEE` line
// per edge, each section sorted.
'use strict';

const fs = require('fs');
const path = require('path');
const ts = require(process.env.TYPESCRIPT || '/usr/share/nodejs/typescript');

function parseArgs(argv) {
  const a = { files: [] };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '-root' || k === '-package' || k === '-version' || k === '-out' || k === '-source') {
      if (i + 1 >= argv.length) throw new Error(`gtgen: ${k} needs a value`);
      a[k.slice(1)] = argv[++i];
    } else if (k.startsWith('-')) {
      throw new Error(`gtgen: unknown flag ${k}`);
    } else {
      a.files.push(k);
    }
  }
  if (!a.root || !a.package || !a.version || a.files.length === 0) {
    throw new Error('gtgen: usage: node gtgen.js -root DIR -package NAME -version V [-source TEXT] [-out FILE] FILE...');
  }
  a.files.sort();
  return a;
}

// strip removes what the front end looks through: parentheses, await, the left operands
// of a comma expression, x!, x as T, x satisfies T, <T>x.
function strip(n) {
  for (;;) {
    if (!n) return n;
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.CommaToken) {
      n = n.right;
      continue;
    }
    if (ts.isParenthesizedExpression(n) || ts.isAwaitExpression(n) || ts.isNonNullExpression(n) ||
        ts.isAsExpression(n) || ts.isTypeAssertionExpression(n) ||
        (ts.isSatisfiesExpression && ts.isSatisfiesExpression(n))) {
      n = n.expression;
    } else {
      return n;
    }
  }
}

function isFunc(n) {
  return !!n && (ts.isArrowFunction(n) || ts.isFunctionExpression(n));
}

// propName is a property name as the front end spells it: identifiers and private
// names as written, string keys without their quotes, numbers as written, computed
// names empty.
function propName(n, sf) {
  if (!n) return '';
  if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isNumericLiteral(n)) return n.getText(sf);
  if (ts.isStringLiteral(n)) return n.getText(sf).slice(1, -1);
  return '';
}

// memberPath is the dotted text of a chain of identifiers and `this` (a.b.c), or ''.
function memberPath(n, sf) {
  if (ts.isIdentifier(n)) return n.text;
  if (n.kind === ts.SyntaxKind.ThisKeyword) return 'this';
  if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.name)) {
    const base = memberPath(n.expression, sf);
    if (base) return base + '.' + n.name.text;
  }
  return '';
}

// Namer assigns IDs to one file's definitions.
class Namer {
  constructor(sf, rel) {
    this.sf = sf;
    this.rel = rel;
    this.defs = []; // {name, pos, fn}
  }

  // position of a declaration without a leading `export` / `export default`.
  startOf(n) {
    let pos = n.getStart(this.sf);
    const text = this.sf.text.slice(pos, pos + 40);
    const m = /^export\s+(default\s+)?/.exec(text);
    if (m && !ts.isExportAssignment(n)) pos += m[0].length;
    return pos;
  }

  newDef(name, posNode, fn, raw) {
    const pos = raw ? posNode.getStart(this.sf) : this.startOf(posNode);
    const d = { name, pos, fn };
    this.defs.push(d);
    return d;
  }

  walkKids(n, x) {
    ts.forEachChild(n, (k) => { this.walk(k, x); });
  }

  fold(n, x) {
    this.walkKids(n, x);
  }

  body(fn, d, cls, x) {
    const nx = { prefix: d.name + '.', owner: d, cls };
    for (const p of fn.parameters || []) this.walk(p, nx);
    if (fn.body) this.walk(fn.body, nx);
  }

  walk(n, x) {
    const K = ts.SyntaxKind;
    switch (n.kind) {
      case K.InterfaceDeclaration: case K.TypeAliasDeclaration: case K.EnumDeclaration:
      case K.ImportDeclaration: case K.ImportEqualsDeclaration:
        return;
      case K.ModuleDeclaration:
        if (n.body && n.name && ts.isIdentifier(n.name)) {
          this.walk(n.body, { prefix: x.prefix + n.name.text + '.', owner: x.owner, cls: x.cls });
        }
        return;
      case K.FunctionDeclaration: {
        if (!n.body) return; // overload signature
        if (!n.name) {
          const isDefault = (n.modifiers || []).some((m) => m.kind === K.DefaultKeyword);
          if (isDefault) {
            const d = this.newDef(x.prefix + 'default', n, n, true);
            this.body(n, d, null, x);
          } else {
            this.fold(n, x);
          }
          return;
        }
        const d = this.newDef(x.prefix + n.name.text, n, n);
        this.body(n, d, null, x);
        return;
      }
      case K.ClassDeclaration: {
        const isDefault = (n.modifiers || []).some((m) => m.kind === K.DefaultKeyword);
        this.classDecl(n, !n.name && isDefault ? 'default' : '', x);
        return;
      }
      case K.ClassExpression:
        this.classDecl(n, '', x);
        return;
      case K.VariableDeclarationList: {
        const ds = n.declarations;
        for (const vd of ds) this.declarator(vd, ds.length === 1 ? n : vd, x);
        return;
      }
      case K.BinaryExpression:
        if (n.operatorToken.kind === K.EqualsToken) {
          this.assignment(n, x);
          return;
        }
        break;
      case K.ExportAssignment: {
        const v = strip(n.expression);
        if (isFunc(v)) {
          const d = this.newDef(x.prefix + 'default', n, v, true);
          this.body(v, d, null, x);
        } else if (v && ts.isClassExpression(v)) {
          this.classDecl(v, v.name ? '' : 'default', x);
        } else if (v && ts.isObjectLiteralExpression(v)) {
          this.objectLit(v, 'default', x);
        } else {
          this.walk(n.expression, x);
        }
        return;
      }
      case K.ArrowFunction: case K.FunctionExpression:
        this.fold(n, x);
        return;
    }
    this.walkKids(n, x);
  }

  declarator(vd, posNode, x) {
    const init = vd.initializer;
    const v = strip(init);
    if (!ts.isIdentifier(vd.name)) {
      if (init) this.walk(init, x);
      return;
    }
    const name = vd.name.text;
    if (vd.type && !isFunc(v) && !(v && (ts.isClassExpression(v) || ts.isObjectLiteralExpression(v)))) {
      if (init) this.walk(init, x);
      return;
    }
    if (!v) return;
    if (isFunc(v)) {
      const d = this.newDef(x.prefix + name, posNode, v);
      this.body(v, d, ts.isArrowFunction(v) ? x.cls : null, x);
      return;
    }
    if (ts.isClassExpression(v)) {
      this.classDecl(v, name, x);
      return;
    }
    if (ts.isObjectLiteralExpression(v)) {
      this.objectLit(v, x.prefix + name, x);
      return;
    }
    this.walk(init, x);
  }

  objectLit(obj, prefix, x) {
    for (const p of obj.properties) {
      if (ts.isMethodDeclaration(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p)) {
        const d = this.newDef(prefix + '.' + propName(p.name, this.sf), p, p);
        this.body(p, d, null, x); // this is the object, not a class
      } else if (ts.isPropertyAssignment(p)) {
        const key = propName(p.name, this.sf);
        const v = strip(p.initializer);
        if (isFunc(v) && key !== '') {
          const d = this.newDef(prefix + '.' + key, p, v);
          this.body(v, d, ts.isArrowFunction(v) ? x.cls : null, x);
        } else if (v && ts.isObjectLiteralExpression(v) && key !== '') {
          this.objectLit(v, prefix + '.' + key, x);
        } else {
          this.walk(p.initializer, x);
        }
      } else if (ts.isSpreadAssignment(p)) {
        this.walk(p.expression, x);
      }
    }
  }

  assignment(n, x) {
    const r = strip(n.right);
    const lt = memberPath(n.left, this.sf);
    const posNode = ts.isExpressionStatement(n.parent) ? n.parent : n;
    if (r) {
      if (lt === 'module.exports') {
        if (ts.isObjectLiteralExpression(r)) { this.objectLit(r, 'module.exports', x); return; }
        if (isFunc(r)) {
          const d = this.newDef('module.exports', posNode, r);
          this.body(r, d, null, x);
          return;
        }
        if (ts.isClassExpression(r)) { this.classDecl(r, 'module.exports', x); return; }
      } else if (lt && (lt.startsWith('exports.') || lt.startsWith('module.exports.')) && !x.owner) {
        const key = lt.slice(lt.lastIndexOf('.') + 1);
        if (isFunc(r)) {
          const d = this.newDef(lt, posNode, r);
          this.body(r, d, null, x);
          return;
        }
        if (ts.isClassExpression(r)) { this.classDecl(r, key, x); return; }
      } else if (lt.startsWith('this.') && x.cls && lt.length > 5 && lt.lastIndexOf('.') === 4) {
        if (isFunc(r)) {
          const d = this.newDef(x.cls.name + '.' + lt.slice(5), posNode, r);
          this.body(r, d, ts.isArrowFunction(r) ? x.cls : null, x);
          return;
        }
      } else if (lt && isFunc(r)) {
        const d = this.newDef(x.prefix + lt, posNode, r);
        this.body(r, d, null, x);
        return;
      }
    }
    this.walk(n.left, x);
    this.walk(n.right, x);
  }

  classDecl(n, bind, x) {
    const K = ts.SyntaxKind;
    const name = bind || (n.name && n.name.text) || '<class>';
    const cl = { name: x.prefix + name };
    for (const h of n.heritageClauses || []) this.walk(h, x);
    const inCls = { prefix: x.prefix, owner: x.owner, cls: cl };
    for (const m of n.members) {
      switch (m.kind) {
        case K.Constructor: case K.MethodDeclaration: case K.GetAccessor: case K.SetAccessor: {
          if (!m.body) break; // overload or abstract
          const mname = m.kind === K.Constructor ? 'constructor' : propName(m.name, this.sf);
          const d = this.newDef(cl.name + '.' + mname, m, m);
          this.body(m, d, cl, x);
          break;
        }
        case K.PropertyDeclaration: {
          const prop = propName(m.name, this.sf);
          const v = strip(m.initializer);
          if (v && isFunc(v) && prop !== '') {
            const d = this.newDef(cl.name + '.' + prop, m, v);
            this.body(v, d, ts.isArrowFunction(v) ? cl : null, x);
          } else if (v) {
            this.walk(m.initializer, inCls);
          }
          break;
        }
        case K.ClassStaticBlockDeclaration:
          this.walk(m.body, inCls);
          break;
      }
    }
  }

  // ids numbers the definitions like the front end: @line when a name repeats in the
  // file, :column when it also repeats on the line.
  ids() {
    const count = new Map();
    const inc = (k) => count.set(k, (count.get(k) || 0) + 1);
    const at = (d) => {
      const lc = this.sf.getLineAndCharacterOfPosition(d.pos);
      return { line: lc.line + 1, col: lc.character + 1 };
    };
    for (const d of this.defs) {
      inc(d.name);
      inc(d.name + '@' + at(d).line);
    }
    const byFn = new Map();
    for (const d of this.defs) {
      let id = this.rel + '::' + d.name;
      if (count.get(d.name) > 1) {
        const { line, col } = at(d);
        id += '@' + line;
        if (count.get(d.name + '@' + line) > 1) id += ':' + col;
      }
      d.id = id;
      if (!byFn.has(d.fn)) byFn.set(d.fn, id);
    }
    return byFn;
  }
}

function isCall(n) {
  return ts.isCallExpression(n) || ts.isNewExpression(n) || ts.isTaggedTemplateExpression(n);
}

// fnOfDecl maps a declaration the checker returns to the function-like node it stands for.
function fnOfDecl(d) {
  if (!d) return undefined;
  if (ts.isVariableDeclaration(d) || ts.isPropertyAssignment(d) || ts.isPropertyDeclaration(d)) {
    return strip(d.initializer);
  }
  if (ts.isBinaryExpression(d)) return strip(d.right);
  if ((ts.isPropertyAccessExpression(d) || ts.isElementAccessExpression(d)) && d.parent &&
      ts.isBinaryExpression(d.parent) && d.parent.left === d) {
    return strip(d.parent.right);
  }
  return d;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const root = path.resolve(args.root);
  const listed = new Set(args.files.map((f) => path.join(root, f)));
  for (const f of listed) {
    if (!fs.existsSync(f)) throw new Error(`gtgen: ${f}: no such file`);
  }
  const options = {
    allowJs: true, checkJs: false, noEmit: true, target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.NodeJs,
    maxNodeModuleJsDepth: 0, types: [], skipLibCheck: true, jsx: ts.JsxEmit.Preserve,
  };
  const host = ts.createCompilerHost(options, true);
  const under = (p) => path.resolve(p).startsWith(root + path.sep);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (p) => (under(p) ? listed.has(path.resolve(p)) : fileExists(p));
  const program = ts.createProgram([...listed], options, host);
  const checker = program.getTypeChecker();

  const fnIds = new Map(); // function-like node -> id
  const defs = [];
  const sources = [];
  for (const rel of args.files) {
    const sf = program.getSourceFile(path.join(root, rel));
    if (!sf) throw new Error(`gtgen: ${rel}: not in the program`);
    const nm = new Namer(sf, rel);
    nm.walk(sf, { prefix: '', owner: null, cls: null });
    for (const [fn, id] of nm.ids()) fnIds.set(fn, id);
    for (const d of nm.defs) defs.push(d.id);
    sources.push({ sf, rel });
  }

  const stats = { calls: 0, bySignature: 0, bySymbol: 0, external: 0, unknown: 0 };
  const edges = new Set();
  const resolveCallee = (call) => {
    let sig;
    try { sig = checker.getResolvedSignature(call); } catch (e) { sig = undefined; }
    const d = sig && sig.declaration;
    if (d) {
      const id = fnIds.get(fnOfDecl(d));
      if (id) { stats.bySignature++; return id; }
    }
    let expr = ts.isTaggedTemplateExpression(call) ? call.tag : call.expression;
    expr = strip(expr);
    if (!expr) return undefined;
    const at = ts.isPropertyAccessExpression(expr) ? expr.name : expr;
    let sym = checker.getSymbolAtLocation(at);
    if (sym && (sym.flags & ts.SymbolFlags.Alias)) sym = checker.getAliasedSymbol(sym);
    const vd = sym && sym.valueDeclaration;
    if (vd) {
      const id = fnIds.get(fnOfDecl(vd));
      if (id) { stats.bySymbol++; return id; }
    }
    if (d || vd) stats.external++; else stats.unknown++;
    if (process.env.GTGEN_DEBUG) {
      const sf = call.getSourceFile();
      const lc = sf.getLineAndCharacterOfPosition(call.getStart(sf));
      process.stderr.write(`unresolved ${d || vd ? 'external' : 'unknown'} ${path.relative(root, sf.fileName)}:${lc.line + 1}: ${call.getText(sf).slice(0, 60).replace(/\s+/g, ' ')}\n`);
    }
    return undefined;
  };
  for (const { sf, rel } of sources) {
    const visit = (n, owner) => {
      const id = fnIds.get(n);
      if (id) owner = id;
      if (isCall(n)) {
        stats.calls++;
        const callee = resolveCallee(n);
        if (callee) edges.add(owner + ' ' + callee);
      }
      ts.forEachChild(n, (k) => visit(k, owner));
    };
    visit(sf, rel + '::<module>');
  }

  const lines = [`package ${args.package} ${args.version}`];
  if (args.source) lines.push(`source ${args.source}`);
  for (const f of args.files) lines.push(`file ${f}`);
  for (const d of [...defs].sort()) lines.push(`def ${d}`);
  for (const e of [...edges].sort()) lines.push(`edge ${e}`);
  const out = lines.join('\n') + '\n';
  if (args.out) fs.writeFileSync(args.out, out); else process.stdout.write(out);
  process.stderr.write(`gtgen: ${args.package} ${args.version}: ${args.files.length} files, ${defs.length} definitions, ` +
    `${stats.calls} call sites: ${stats.bySignature} resolved by signature, ${stats.bySymbol} by symbol, ` +
    `${stats.external} to declarations outside the definitions, ${stats.unknown} without declaration; ${edges.size} edges\n`);
}

try {
  main();
} catch (e) {
  process.stderr.write(String(e && e.message ? e.message : e) + '\n');
  process.exit(1);
}
