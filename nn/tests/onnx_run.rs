//! The exported ONNX graphs run by a small interpreter written here (the
//! operators the export uses, with ONNX's semantics and defaults, strict
//! about attribute names and types, value names and declared shapes)
//! against burn's forward pass of the same network: every head of every
//! game and head configuration (the conv policy head's gather too), and
//! the platform's one output.

mod common;

use std::collections::HashMap;

use common::{assert_close, inputs, random_net, spread};
use onnx_protobuf::attribute_proto::AttributeType;
use onnx_protobuf::tensor_proto::DataType;
use onnx_protobuf::{Message, ModelProto, NodeProto, ValueInfoProto};
use pacozero_data::{spec_of, spec_of_encoding};
use pacozero_engine::GameKind;
use pacozero_nn::{default_device, ModelInfo, NetConfig, Network, PolicyHead};

/// A value of the graph: a float tensor (dims, row-major data) or an int64 list.
#[derive(Clone, Debug)]
enum Value {
    F(Vec<usize>, Vec<f32>),
    I(Vec<i64>),
}

fn floats(v: &Value) -> (&[usize], &[f32]) {
    match v {
        Value::F(d, x) => (d, x),
        Value::I(_) => panic!("a float tensor expected"),
    }
}

/// The attributes an operator may carry (anything else is an error).
fn allowed(op: &str) -> &'static [&'static str] {
    match op {
        "Conv" => &["kernel_shape", "pads"],
        "Flatten" | "Split" | "Concat" | "Softmax" | "Gather" => &["axis"],
        _ => &[],
    }
}

fn attr_int(n: &NodeProto, name: &str) -> Option<i64> {
    let a = n.attribute.iter().find(|a| a.name == name)?;
    assert!(a.type_ == AttributeType::INT.into(), "{}: attribute {name} is not an INT", n.name);
    Some(a.i)
}

fn attr_ints(n: &NodeProto, name: &str) -> Option<Vec<i64>> {
    let a = n.attribute.iter().find(|a| a.name == name)?;
    assert!(a.type_ == AttributeType::INTS.into(), "{}: attribute {name} is not INTS", n.name);
    Some(a.ints.clone())
}

/// `axis` counted from the end when negative.
fn axis_of(axis: i64, rank: usize) -> usize {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    assert!((0..rank as i64).contains(&a), "axis {axis} of a rank {rank} tensor");
    a as usize
}

/// (product of the dims before `a`, dims[a], product of the dims after `a`).
fn split_at_axis(d: &[usize], a: usize) -> (usize, usize, usize) {
    (d[..a].iter().product(), d[a], d[a + 1..].iter().product())
}

/// Elementwise `f` with broadcasting between tensors of the same rank.
fn broadcast(a: &Value, b: &Value, f: impl Fn(f32, f32) -> f32) -> Value {
    let ((da, xa), (db, xb)) = (floats(a), floats(b));
    assert_eq!(da.len(), db.len(), "broadcast of ranks {da:?} and {db:?}");
    let d: Vec<usize> = da
        .iter()
        .zip(db)
        .map(|(&p, &q)| {
            if p == q || q == 1 {
                p
            } else {
                assert_eq!(p, 1, "{da:?} vs {db:?}");
                q
            }
        })
        .collect();
    let n: usize = d.iter().product();
    let index = |dims: &[usize], mut i: usize| {
        let mut k = 0;
        let mut stride = 1;
        for r in (0..d.len()).rev() {
            let c = i % d[r];
            i /= d[r];
            if dims[r] != 1 {
                k += c * stride;
            }
            stride *= dims[r];
        }
        k
    };
    Value::F(d.clone(), (0..n).map(|i| f(xa[index(da, i)], xb[index(db, i)])).collect())
}

fn run_node(n: &NodeProto, ins: &[&Value]) -> Vec<Value> {
    for a in &n.attribute {
        assert!(allowed(&n.op_type).contains(&a.name.as_str()), "{} ({}): unexpected attribute {:?}", n.name, n.op_type, a.name);
    }
    let one = |v: Value| vec![v];
    match n.op_type.as_str() {
        "Conv" => {
            let ((dx, x), (dw, w), (db, b)) = (floats(ins[0]), floats(ins[1]), floats(ins[2]));
            let (nb, ci, h, wd) = (dx[0], dx[1], dx[2], dx[3]);
            let (co, wci, kh, kw) = (dw[0], dw[1], dw[2], dw[3]);
            assert_eq!((ci, db), (wci, &[co][..]), "{}", n.name);
            assert_eq!(attr_ints(n, "kernel_shape"), Some(vec![kh as i64, kw as i64]), "{}: kernel_shape", n.name);
            let pads = attr_ints(n, "pads").unwrap_or(vec![0; 4]);
            let (pt, pl, pb, pr) = (pads[0] as usize, pads[1] as usize, pads[2] as usize, pads[3] as usize);
            let (oh, ow) = (h + pt + pb + 1 - kh, wd + pl + pr + 1 - kw);
            let mut out = vec![0.0; nb * co * oh * ow];
            for bi in 0..nb {
                for o in 0..co {
                    for y in 0..oh {
                        for xx in 0..ow {
                            let mut s = b[o] as f64;
                            for c in 0..ci {
                                for ky in 0..kh {
                                    for kx in 0..kw {
                                        let (sy, sx) = ((y + ky) as i64 - pt as i64, (xx + kx) as i64 - pl as i64);
                                        if sy >= 0 && sx >= 0 && (sy as usize) < h && (sx as usize) < wd {
                                            let v = x[((bi * ci + c) * h + sy as usize) * wd + sx as usize];
                                            s += v as f64 * w[((o * ci + c) * kh + ky) * kw + kx] as f64;
                                        }
                                    }
                                }
                            }
                            out[((bi * co + o) * oh + y) * ow + xx] = s as f32;
                        }
                    }
                }
            }
            one(Value::F(vec![nb, co, oh, ow], out))
        }
        "Relu" | "Sigmoid" | "Identity" => {
            let (d, x) = floats(ins[0]);
            let f = |v: f32| match n.op_type.as_str() {
                "Relu" => v.max(0.0),
                "Sigmoid" => 1.0 / (1.0 + (-v).exp()),
                _ => v,
            };
            one(Value::F(d.to_vec(), x.iter().map(|&v| f(v)).collect()))
        }
        "Add" => one(broadcast(ins[0], ins[1], |a, b| a + b)),
        "Mul" => one(broadcast(ins[0], ins[1], |a, b| a * b)),
        "Gemm" => {
            let ((da, a), (db, b), (dc, c)) = (floats(ins[0]), floats(ins[1]), floats(ins[2]));
            assert_eq!((da.len(), db.len(), da[1], dc), (2, 2, db[0], &[db[1]][..]), "{}: Gemm of {da:?} {db:?} {dc:?}", n.name);
            let (m, k, nn) = (da[0], da[1], db[1]);
            let mut out = vec![0.0; m * nn];
            for i in 0..m {
                for j in 0..nn {
                    out[i * nn + j] = c[j] + (0..k).map(|t| a[i * k + t] * b[t * nn + j]).sum::<f32>();
                }
            }
            one(Value::F(vec![m, nn], out))
        }
        "MatMul" => {
            let ((da, a), (db, b)) = (floats(ins[0]), floats(ins[1]));
            assert_eq!((da.len(), db.len(), da[1]), (2, 2, db[0]), "{}", n.name);
            let (m, k, nn) = (da[0], da[1], db[1]);
            one(Value::F(vec![m, nn], (0..m * nn).map(|ij| (0..k).map(|t| a[ij / nn * k + t] * b[t * nn + ij % nn]).sum()).collect()))
        }
        "GlobalAveragePool" | "GlobalMaxPool" => {
            let (d, x) = floats(ins[0]);
            assert_eq!(d.len(), 4);
            let hw = d[2] * d[3];
            let pooled = x
                .chunks(hw)
                .map(|c| if n.op_type == "GlobalMaxPool" { c.iter().cloned().fold(f32::MIN, f32::max) } else { c.iter().sum::<f32>() / hw as f32 })
                .collect();
            one(Value::F(vec![d[0], d[1], 1, 1], pooled))
        }
        "Flatten" => {
            let (d, x) = floats(ins[0]);
            let a = attr_int(n, "axis").unwrap_or(1) as usize;
            assert!(a <= d.len());
            one(Value::F(vec![d[..a].iter().product(), d[a..].iter().product()], x.to_vec()))
        }
        "Split" => {
            let (d, x) = floats(ins[0]);
            let Value::I(sizes) = ins[1] else { panic!("{}: split sizes are int64", n.name) };
            let a = axis_of(attr_int(n, "axis").unwrap_or(0), d.len());
            let (outer, len, inner) = split_at_axis(d, a);
            assert_eq!((sizes.iter().sum::<i64>() as usize, sizes.len()), (len, n.output.len()), "{}", n.name);
            let mut start = 0;
            sizes
                .iter()
                .map(|&s| {
                    let s = s as usize;
                    let mut dims = d.to_vec();
                    dims[a] = s;
                    let part = (0..outer).flat_map(|o| x[(o * len + start) * inner..(o * len + start + s) * inner].to_vec()).collect();
                    start += s;
                    Value::F(dims, part)
                })
                .collect()
        }
        "Unsqueeze" => {
            let (d, x) = floats(ins[0]);
            let Value::I(axes) = ins[1] else { panic!("{}: axes are int64", n.name) };
            let mut dims = d.to_vec();
            let mut axes: Vec<usize> = axes.iter().map(|&a| axis_of(a, d.len() + axes.len())).collect();
            axes.sort();
            for a in axes {
                dims.insert(a, 1);
            }
            one(Value::F(dims, x.to_vec()))
        }
        "Concat" => {
            let parts: Vec<(&[usize], &[f32])> = ins.iter().map(|v| floats(v)).collect();
            let a = axis_of(attr_int(n, "axis").unwrap_or_else(|| panic!("{}: Concat needs an axis", n.name)), parts[0].0.len());
            let mut dims = parts[0].0.to_vec();
            dims[a] = parts.iter().map(|(d, _)| d[a]).sum();
            let (outer, _, inner) = split_at_axis(&dims, a);
            let mut out = Vec::new();
            for o in 0..outer {
                for (d, x) in &parts {
                    assert_eq!((d.len(), &d[..a], &d[a + 1..]), (dims.len(), &dims[..a], &dims[a + 1..]), "{}", n.name);
                    out.extend_from_slice(&x[o * d[a] * inner..(o + 1) * d[a] * inner]);
                }
            }
            one(Value::F(dims, out))
        }
        "Softmax" => {
            let (d, x) = floats(ins[0]);
            let a = axis_of(attr_int(n, "axis").unwrap_or(-1), d.len());
            let (outer, len, inner) = split_at_axis(d, a);
            let mut out = x.to_vec();
            for o in 0..outer {
                for i in 0..inner {
                    let at = |k: usize| (o * len + k) * inner + i;
                    let mx = (0..len).map(|k| x[at(k)]).fold(f32::MIN, f32::max);
                    let s: f32 = (0..len).map(|k| (x[at(k)] - mx).exp()).sum();
                    (0..len).for_each(|k| out[at(k)] = (x[at(k)] - mx).exp() / s);
                }
            }
            one(Value::F(d.to_vec(), out))
        }
        "Gather" => {
            let (d, x) = floats(ins[0]);
            let Value::I(indices) = ins[1] else { panic!("{}: gather indices are int64", n.name) };
            let a = axis_of(attr_int(n, "axis").unwrap_or(0), d.len());
            let (outer, len, inner) = split_at_axis(d, a);
            let mut dims = d.to_vec();
            dims[a] = indices.len();
            let mut out = Vec::with_capacity(outer * indices.len() * inner);
            for o in 0..outer {
                for &i in indices {
                    // Negative indices count from the end of the axis.
                    let i = if i < 0 { i + len as i64 } else { i };
                    assert!((0..len as i64).contains(&i), "{}: index {i} of an axis of {len}", n.name);
                    out.extend_from_slice(&x[(o * len + i as usize) * inner..(o * len + i as usize + 1) * inner]);
                }
            }
            one(Value::F(dims, out))
        }
        op => panic!("{}: operator {op} is not one the export uses", n.name),
    }
}

/// The declared shape of a graph input or output, with the batch dimension as `batch`.
fn declared(v: &ValueInfoProto, batch: usize) -> Vec<usize> {
    use onnx_protobuf::tensor_shape_proto::dimension::Value as D;
    use onnx_protobuf::type_proto::Value as T;
    let Some(T::TensorType(t)) = &v.type_.value else { panic!("{} is not a tensor", v.name) };
    assert_eq!(t.elem_type, DataType::FLOAT as i32, "{} is not float32", v.name);
    t.shape
        .dim
        .iter()
        .map(|d| match &d.value {
            Some(D::DimValue(n)) => *n as usize,
            Some(D::DimParam(p)) if p == "batch" => batch,
            other => panic!("{}: dimension {other:?}", v.name),
        })
        .collect()
}

/// Runs `m` on `x` (its one input, `batch` positions); returns the declared outputs by name.
fn run(m: &ModelProto, x: &[f32], batch: usize) -> HashMap<String, Vec<f32>> {
    let g = m.graph.as_ref().unwrap();
    let mut env: HashMap<String, Value> = HashMap::new();
    for t in &g.initializer {
        let dims: Vec<usize> = t.dims.iter().map(|&d| d as usize).collect();
        let n: usize = dims.iter().product();
        let v = if t.data_type == DataType::FLOAT as i32 {
            assert_eq!(t.raw_data.len(), 4 * n, "initializer {}", t.name);
            Value::F(dims, t.raw_data.chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect())
        } else {
            assert_eq!((t.data_type, t.int64_data.len(), dims.len()), (DataType::INT64 as i32, n, 1), "initializer {}", t.name);
            Value::I(t.int64_data.clone())
        };
        assert!(env.insert(t.name.clone(), v).is_none(), "two initializers named {:?}", t.name);
    }
    let [input] = &g.input[..] else { panic!("one input") };
    let dims = declared(input, batch);
    assert_eq!(dims.iter().product::<usize>(), x.len(), "the input's declared shape {dims:?}");
    env.insert(input.name.clone(), Value::F(dims, x.to_vec()));
    for n in &g.node {
        let ins: Vec<&Value> =
            n.input.iter().map(|i| env.get(i).unwrap_or_else(|| panic!("{} ({}) reads {i:?}, which nothing made", n.name, n.op_type))).collect();
        let outs = run_node(n, &ins);
        assert_eq!(outs.len(), n.output.len(), "{}", n.name);
        for (name, v) in n.output.iter().zip(outs) {
            assert!(env.insert(name.clone(), v).is_none(), "{} ({}) remakes {name:?}", n.name, n.op_type);
        }
    }
    g.output
        .iter()
        .map(|o| {
            let (d, x) = floats(&env[&o.name]);
            assert_eq!(d, declared(o, batch), "output {}", o.name);
            (o.name.clone(), x.to_vec())
        })
        .collect()
}

fn info() -> ModelInfo {
    ModelInfo { name: "t".into(), step: 3, samples_seen: 0, provenance: None }
}

#[test]
fn the_exported_graph_computes_every_head_as_burn_does() {
    for kind in GameKind::ALL {
        let spec = spec_of(kind);
        let configs =
            [(4, false, false, PolicyHead::Fc), (0, true, true, PolicyHead::Fc), (2, true, false, PolicyHead::Fc), (2, false, true, PolicyHead::Conv)];
        for (i, (se_ratio, value_pool, reply_policy, policy_head)) in configs.into_iter().enumerate() {
            let net = NetConfig { blocks: 2, se_ratio, value_pool, reply_policy, policy_head, value_channels: 3, ..NetConfig::tiny_for(&spec) };
            let what = format!("{kind} se_ratio={se_ratio} value_pool={value_pool} reply_policy={reply_policy} policy_head={}", policy_head.name());
            let model = random_net(&net, 70 + i as u64);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.onnx");
            pacozero_nn::onnx::export_network(&model, &net, &info(), &path).unwrap();
            let m = ModelProto::parse_from_bytes(&std::fs::read(&path).unwrap()).unwrap();
            let network = Network::from_model(model, net.clone(), info(), &default_device(), 1).unwrap();
            let batch = 2;
            let x = inputs(&net, batch, 80 + i as u64);
            let want = network.forward_heads(x.clone(), batch, false);
            let got = run(&m, &x, batch);
            let mut names: Vec<&str> = got.keys().map(String::as_str).collect();
            names.sort();
            let expected = if reply_policy { vec!["aux", "moves_left", "policy", "reply", "wdl"] } else { vec!["aux", "moves_left", "policy", "wdl"] };
            assert_eq!(names, expected, "{what}");
            assert_close(&format!("{what} policy"), &got["policy"], &want.policy, 1e-4);
            assert_close(&format!("{what} wdl"), &got["wdl"], &want.wdl, 1e-4);
            assert_close(&format!("{what} moves_left"), &got["moves_left"], &want.moves_left, 1e-4);
            assert_close(&format!("{what} aux"), &got["aux"], want.aux.as_ref().unwrap(), 1e-4);
            if reply_policy {
                assert_close(&format!("{what} reply"), &got["reply"], want.reply.as_ref().unwrap(), 1e-4);
            }
            // Not a degenerate comparison: the outputs vary over slots and positions.
            let p = net.policy_size as usize;
            assert!(spread(&want.policy) > 1e-3 && spread(&[want.policy[0], want.policy[p]]) > 1e-6, "{what}");
            assert!(spread(&[want.wdl[0], want.wdl[3]]) > 1e-6 && spread(&want.aux.unwrap()) > 1e-6, "{what}");
        }
    }
}

#[test]
fn the_platform_file_outputs_the_value_then_the_policys_probabilities() {
    let spec = spec_of_encoding(GameKind::Paco, "platform").unwrap();
    let net = NetConfig { se_ratio: 2, ..NetConfig::tiny_for(&spec) };
    let model = random_net(&net, 90);
    let m = pacozero_platform::onnx::platform_model(&model, &net, &info()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.onnx");
    pacozero_platform::onnx::export_platform(&model, &net, &info(), &path).unwrap();
    assert!(std::fs::read(&path).unwrap() == m.write_to_bytes().unwrap(), "the file holds the model");
    let network = Network::from_model(model, net.clone(), info(), &default_device(), 1).unwrap();
    for seed in [91, 92] {
        let x = inputs(&net, 1, seed);
        let want = network.forward_heads(x.clone(), 1, false);
        let got = &run(&m, &x, 1)["OUTPUT"];
        assert_eq!(got.len(), 133);
        // Index 0: win - loss.
        let value = want.wdl[0] - want.wdl[2];
        assert!((got[0] - value).abs() < 1e-4, "value {} vs {value}", got[0]);
        assert!(value.abs() > 1e-3, "a value away from 0 tells win - loss from win + loss and others");
        // Indices 1..=132: the softmax of the policy logits.
        let mx = want.policy.iter().cloned().fold(f32::MIN, f32::max);
        let e: Vec<f32> = want.policy.iter().map(|l| (l - mx).exp()).collect();
        let s: f32 = e.iter().sum();
        let probs: Vec<f32> = e.iter().map(|v| v / s).collect();
        assert_close("policy probabilities", &got[1..], &probs, 1e-5);
        assert!((got[1..].iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
}
