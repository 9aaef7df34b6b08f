// minitensor._C: the CPython extension (C API only) over the tensor core.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstring>
#include <new>

#include "tensor.hpp"

namespace {

struct PyTensor {
  PyObject_HEAD minitensor::Tensor tensor;
};

PyTypeObject* tensor_type = nullptr;

PyObject* wrap(minitensor::Tensor&& tensor) {
  auto* self = PyObject_New(PyTensor, tensor_type);
  if (self == nullptr) return nullptr;
  new (&self->tensor) minitensor::Tensor(static_cast<minitensor::Tensor&&>(tensor));
  return reinterpret_cast<PyObject*>(self);
}

PyObject* fail(minitensor::Status status) {
  PyErr_SetString(status == minitensor::Status::out_of_memory ? PyExc_MemoryError : PyExc_ValueError,
                  minitensor::status_message(status));
  return nullptr;
}

bool as_tensor(PyObject* object, minitensor::Tensor** out) {
  if (!PyObject_TypeCheck(object, tensor_type)) {
    PyErr_SetString(PyExc_TypeError, "expected a minitensor.Tensor");
    return false;
  }
  *out = &reinterpret_cast<PyTensor*>(object)->tensor;
  return true;
}

void tensor_dealloc(PyObject* self) {
  reinterpret_cast<PyTensor*>(self)->tensor.~Tensor();
  PyObject_Free(self);
}

// tensor(values, shape): a flat sequence of numbers and a shape tuple.
PyObject* make_tensor(PyObject*, PyObject* args) {
  PyObject* values = nullptr;
  PyObject* shape_object = nullptr;
  if (!PyArg_ParseTuple(args, "OO", &values, &shape_object)) return nullptr;
  PyObject* shape_seq = PySequence_Fast(shape_object, "shape must be a sequence");
  if (shape_seq == nullptr) return nullptr;
  const Py_ssize_t rank = PySequence_Fast_GET_SIZE(shape_seq);
  std::int64_t shape[minitensor::Tensor::k_max_rank] = {0, 0, 0, 0};
  if (rank < 1 || rank > minitensor::Tensor::k_max_rank) {
    Py_DECREF(shape_seq);
    return fail(minitensor::Status::bad_shape);
  }
  for (Py_ssize_t i = 0; i < rank; ++i) shape[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(shape_seq, i));
  Py_DECREF(shape_seq);
  if (PyErr_Occurred()) return nullptr;
  minitensor::Tensor tensor;
  if (auto s = minitensor::Tensor::create(shape, static_cast<int>(rank), 0.0f, tensor);
      s != minitensor::Status::ok)
    return fail(s);
  PyObject* seq = PySequence_Fast(values, "values must be a sequence");
  if (seq == nullptr) return nullptr;
  if (PySequence_Fast_GET_SIZE(seq) != tensor.numel()) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "the number of values does not match the shape");
    return nullptr;
  }
  for (std::int64_t i = 0; i < tensor.numel(); ++i)
    tensor.data()[i] = static_cast<float>(PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i)));
  Py_DECREF(seq);
  if (PyErr_Occurred()) return nullptr;
  return wrap(static_cast<minitensor::Tensor&&>(tensor));
}

PyObject* full(PyObject*, PyObject* args) {
  PyObject* shape_object = nullptr;
  double value = 0.0;
  if (!PyArg_ParseTuple(args, "Od", &shape_object, &value)) return nullptr;
  PyObject* list = PySequence_List(shape_object);
  if (list == nullptr) return nullptr;
  const Py_ssize_t rank = PyList_GET_SIZE(list);
  std::int64_t shape[minitensor::Tensor::k_max_rank] = {0, 0, 0, 0};
  for (Py_ssize_t i = 0; i < rank && i < minitensor::Tensor::k_max_rank; ++i)
    shape[i] = PyLong_AsLongLong(PyList_GET_ITEM(list, i));
  Py_DECREF(list);
  if (PyErr_Occurred()) return nullptr;
  minitensor::Tensor tensor;
  if (auto s = minitensor::Tensor::create(shape, static_cast<int>(rank), static_cast<float>(value), tensor);
      s != minitensor::Status::ok)
    return fail(s);
  return wrap(static_cast<minitensor::Tensor&&>(tensor));
}

PyObject* binary(PyObject* a, PyObject* b,
                 minitensor::Status (*op)(const minitensor::Tensor&, const minitensor::Tensor&,
                                          minitensor::Tensor&)) {
  minitensor::Tensor *ta = nullptr, *tb = nullptr;
  if (!as_tensor(a, &ta) || !as_tensor(b, &tb)) return nullptr;
  minitensor::Tensor out;
  if (auto s = op(*ta, *tb, out); s != minitensor::Status::ok) return fail(s);
  return wrap(static_cast<minitensor::Tensor&&>(out));
}

// add(a, b, device=None): device "cuda" raises instead of quietly computing on the CPU, so a smoke
// test on a GPU host proves the kernel ran.
PyObject* add(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"a", "b", "device", nullptr};
  PyObject *a = nullptr, *b = nullptr;
  const char* device_name = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|z", const_cast<char**>(keywords), &a, &b, &device_name))
    return nullptr;
  minitensor::Device device = minitensor::Device::any;
  if (device_name != nullptr) {
    if (std::strcmp(device_name, "cpu") == 0) {
      device = minitensor::Device::cpu;
    } else if (std::strcmp(device_name, "cuda") == 0) {
      device = minitensor::Device::cuda;
    } else {
      PyErr_Format(PyExc_ValueError, "device must be None, 'cpu' or 'cuda', not '%s'", device_name);
      return nullptr;
    }
  }
  minitensor::Tensor *ta = nullptr, *tb = nullptr;
  if (!as_tensor(a, &ta) || !as_tensor(b, &tb)) return nullptr;
  minitensor::Tensor out;
  const char* why = nullptr;
  if (auto s = minitensor::add(*ta, *tb, out, device, &why); s != minitensor::Status::ok) {
    if (s != minitensor::Status::cuda_unavailable) return fail(s);
    PyErr_Format(PyExc_RuntimeError, "add on the GPU failed: %s",
                 why != nullptr ? why : "unknown CUDA error");
    return nullptr;
  }
  return wrap(static_cast<minitensor::Tensor&&>(out));
}

PyObject* matmul(PyObject*, PyObject* args) {
  PyObject *a = nullptr, *b = nullptr;
  if (!PyArg_ParseTuple(args, "OO", &a, &b)) return nullptr;
  return binary(a, b, minitensor::matmul);
}

minitensor::Status add_anywhere(const minitensor::Tensor& a, const minitensor::Tensor& b,
                                minitensor::Tensor& out) {
  return minitensor::add(a, b, out);
}
PyObject* nb_add(PyObject* a, PyObject* b) {
  return binary(a, b, add_anywhere);
}
PyObject* nb_matmul(PyObject* a, PyObject* b) {
  return binary(a, b, minitensor::matmul);
}

PyObject* tensor_sum(PyObject* self, PyObject*) {
  return PyFloat_FromDouble(minitensor::sum(reinterpret_cast<PyTensor*>(self)->tensor));
}

PyObject* tensor_tolist(PyObject* self, PyObject*) {
  const auto& tensor = reinterpret_cast<PyTensor*>(self)->tensor;
  PyObject* list = PyList_New(tensor.numel());
  if (list == nullptr) return nullptr;
  for (std::int64_t i = 0; i < tensor.numel(); ++i)
    PyList_SET_ITEM(list, i, PyFloat_FromDouble(tensor.data()[i]));
  return list;
}

PyObject* tensor_shape(PyObject* self, void*) {
  const auto& tensor = reinterpret_cast<PyTensor*>(self)->tensor;
  PyObject* shape = PyTuple_New(tensor.rank());
  if (shape == nullptr) return nullptr;
  for (int i = 0; i < tensor.rank(); ++i) PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(tensor.dim(i)));
  return shape;
}

PyObject* cuda_compiled(PyObject*, PyObject*) {
  return PyBool_FromLong(minitensor::cuda_compiled());
}
PyObject* cuda_device_count(PyObject*, PyObject*) {
  return PyLong_FromLong(minitensor::cuda_device_count());
}

PyMethodDef tensor_methods[] = {
    {"sum", tensor_sum, METH_NOARGS, "The sum of every element."},
    {"tolist", tensor_tolist, METH_NOARGS, "The elements as a flat list, row-major."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef tensor_getset[] = {{"shape", tensor_shape, nullptr, "The shape as a tuple.", nullptr},
                               {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot tensor_slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(tensor_dealloc)},
                              {Py_tp_methods, tensor_methods},
                              {Py_tp_getset, tensor_getset},
                              {Py_nb_add, reinterpret_cast<void*>(nb_add)},
                              {Py_nb_matrix_multiply, reinterpret_cast<void*>(nb_matmul)},
                              {Py_tp_doc, const_cast<char*>("A dense float32 tensor.")},
                              {0, nullptr}};

PyType_Spec tensor_spec = {"minitensor._C.Tensor", sizeof(PyTensor), 0, Py_TPFLAGS_DEFAULT, tensor_slots};

PyMethodDef module_methods[] = {
    {"tensor", make_tensor, METH_VARARGS, "tensor(values, shape): a tensor from a flat sequence."},
    {"full", full, METH_VARARGS, "full(shape, value): a tensor filled with value."},
    {"add", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(add)), METH_VARARGS | METH_KEYWORDS,
     "add(a, b, device=None): elementwise sum; device 'cpu' or 'cuda' (raises if the GPU cannot run it)."},
    {"matmul", matmul, METH_VARARGS, "matmul(a, b): 2-D matrix product."},
    {"cuda_compiled", cuda_compiled, METH_NOARGS, "Whether this build has CUDA kernels."},
    {"cuda_device_count", cuda_device_count, METH_NOARGS, "Visible CUDA devices (0 without a driver)."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                          "minitensor._C",
                          "minitensor's native core.",
                          -1,
                          module_methods,
                          nullptr,
                          nullptr,
                          nullptr,
                          nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__C() {
  PyObject* module = PyModule_Create(&module_def);
  if (module == nullptr) return nullptr;
  tensor_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&tensor_spec));
  if (tensor_type == nullptr ||
      PyModule_AddObject(module, "Tensor", reinterpret_cast<PyObject*>(tensor_type)) < 0) {
    Py_DECREF(module);
    return nullptr;
  }
  Py_INCREF(tensor_type);
  return module;
}
