"""The package as editors and users see it: the type stubs name exactly what the module has (with
the same parameters), everything public has a docstring, and the version is the library's."""
import ast
import inspect
import re

import volvox
from conftest import REPO

STUB = ast.parse((REPO / "python" / "volvox" / "__init__.pyi").read_text())


def stub_definitions(body):
    """{name: node} of the functions, classes and annotated names defined in `body`."""
    names = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return {name: node for name, node in names.items() if not name.startswith("_") or name == "__version__"}


def public(names):
    return {n for n in names if not n.startswith("_")}


def parameters(function):
    return [p for p in inspect.signature(function).parameters if p != "self"]


def stub_parameters(node):
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg != "self"]
    return names + ([args.kwarg.arg] if args.kwarg else []) + ([args.vararg.arg] if args.vararg else [])


def test_the_stub_names_exactly_the_public_api():
    stub = stub_definitions(STUB.body)
    assert set(stub) == set(volvox.__all__) | {"__version__"}
    assert public(dir(volvox)) - {"annotations"} >= set(volvox.__all__)


def test_stub_classes_and_functions_match_the_module():
    for name, node in stub_definitions(STUB.body).items():
        runtime = getattr(volvox, name)
        if isinstance(node, ast.FunctionDef):
            assert stub_parameters(node) == parameters(runtime), name
        if not isinstance(node, ast.ClassDef) or issubclass(runtime, (BaseException, int)):
            continue
        members = stub_definitions(node.body)
        # What an instance has: methods, properties, and attributes set in __init__.
        source_attributes = set(re.findall(r"self\.([a-z]\w*) =", inspect.getsource(runtime)))
        actual = public(vars(runtime)) | source_attributes
        assert public(members) == actual, name
        for member, member_node in members.items():
            if isinstance(member_node, ast.FunctionDef) and not member.startswith("_") and \
                    not any(isinstance(d, ast.Name) and d.id == "property" for d in member_node.decorator_list):
                assert stub_parameters(member_node) == parameters(getattr(runtime, member)), f"{name}.{member}"


def test_everything_public_has_a_docstring():
    for name in volvox.__all__:
        obj = getattr(volvox, name)
        assert inspect.getdoc(obj), name
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for member, value in vars(obj).items():
                if not member.startswith("_") and (inspect.isfunction(value) or isinstance(value, property)):
                    assert inspect.getdoc(value), f"{name}.{member}"


def test_the_version_is_the_librarys():
    cmake = (REPO / "CMakeLists.txt").read_text()
    assert re.search(r"project\(volvox VERSION ([\d.]+)", cmake).group(1) == volvox.__version__
