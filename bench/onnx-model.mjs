// Two ONNX models written by hand as protobuf bytes (no onnx package), for bench/peers-core.mjs:
//   attentionModel(n, d): O = Softmax(MatMul(Q, Transpose(K)) · scale, axis −1) · V, Q K V O (n, d)
//   softmaxModel(rows, cols): Y = Softmax(X, axis −1)
// opset 17, IR version 8, float32, fixed shapes. The field numbers are onnx.proto3's:
//   ModelProto      ir_version 1, producer_name 2, graph 7, opset_import 8
//   OperatorSetId   domain 1, version 2
//   GraphProto      node 1, name 2, initializer 5, input 11, output 12
//   NodeProto       input 1, output 2, name 3, op_type 4, attribute 5
//   AttributeProto  name 1, f 2, i 3, ints 8, type 20 (FLOAT 1, INT 2, INTS 7)
//   ValueInfoProto  name 1, type 2 → TypeProto tensor_type 1 → elem_type 1 (FLOAT = 1), shape 2
//   TensorShapeProto dim 1 → dim_value 1
//   TensorProto     dims 1, data_type 2, float_data 4 (packed), name 8

// protobuf wire format: a key is (field << 3 | wire type); 0 varint, 2 length-delimited
function varint(n) {
  const out = [];
  n = BigInt.asUintN(64, BigInt(n));      // int64 −1 is ten bytes, as protobuf writes it
  for (; n >= 0x80n; n >>= 7n) out.push(Number(n & 0x7fn) | 0x80);
  out.push(Number(n));
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const concat = (parts) => parts.flat(Infinity);
const int = (field, n) => [...key(field, 0), ...varint(n)];
const bytes = (field, b) => [...key(field, 2), ...varint(b.length), ...b];
const str = (field, s) => bytes(field, [...new TextEncoder().encode(s)]);
const msg = (field, parts) => bytes(field, concat(parts));
const f32 = (x) => [...new Uint8Array(new Float32Array([x]).buffer)];

const FLOAT = 1;
const ATTR_INT = 2, ATTR_INTS = 7;

function node(opType, inputs, outputs, attributes = []) {
  return msg(1, [inputs.map((s) => str(1, s)), outputs.map((s) => str(2, s)), str(3, `${opType}_${outputs[0]}`),
    str(4, opType), attributes.map((a) => msg(5, a))]);
}
const intAttr = (name, i) => [str(1, name), int(3, i), int(20, ATTR_INT)];
const intsAttr = (name, is) => [str(1, name), is.map((i) => int(8, i)), int(20, ATTR_INTS)];

// a float32 tensor's name, element type and fixed shape (field 11 = graph input, 12 = output)
const valueInfo = (field, name, dims) =>
  msg(field, [str(1, name), msg(2, [msg(1, [int(1, FLOAT), msg(2, dims.map((d) => msg(1, [int(1, d)])))])])]);
// a float32 scalar initializer (dims empty)
const scalar = (name, x) => msg(5, [int(2, FLOAT), bytes(4, f32(x)), str(8, name)]);

function model(graphParts) {
  return new Uint8Array(concat([
    int(1, 8),                              // ir_version 8 (ONNX 1.10+, opset ≤ 17)
    str(2, 'attnlab-bench'),
    msg(7, [str(2, 'g'), graphParts]),
    msg(8, [str(1, ''), int(2, 17)]),       // the default domain at opset 17
  ]));
}

/** O = softmax(Q·Kᵀ·scale)·V, each (n, d); scale 1/√d unless given. */
export function attentionModel(n, d, scale = 1 / Math.sqrt(d)) {
  return model([
    node('Transpose', ['K'], ['Kt'], [intsAttr('perm', [1, 0])]),
    node('MatMul', ['Q', 'Kt'], ['S']),                 // (n, n): 2·n²·d flops
    node('Mul', ['S', 'scale'], ['Ss']),
    node('Softmax', ['Ss'], ['P'], [intAttr('axis', -1)]),
    node('MatMul', ['P', 'V'], ['O']),                  // (n, d): 2·n²·d flops
    scalar('scale', scale),
    ['Q', 'K', 'V'].map((name) => valueInfo(11, name, [n, d])),
    valueInfo(12, 'O', [n, d]),
  ]);
}

/** Y = softmax(X) along the rows of a (rows, cols) matrix. */
export function softmaxModel(rows, cols) {
  return model([
    node('Softmax', ['X'], ['Y'], [intAttr('axis', -1)]),
    valueInfo(11, 'X', [rows, cols]),
    valueInfo(12, 'Y', [rows, cols]),
  ]);
}
