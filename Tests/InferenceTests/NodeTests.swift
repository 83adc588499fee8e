import Foundation
import PlantGuideCore
import PlantGuideInference
import PlantGuideTestSupport
import Testing

/// ONNX's own backend node tests (Debian's libonnx-testdata) for every supported operator: each folder's outputs
/// must match within ONNX's tolerance.
@Suite(.cpuHeavy) struct NodeTests {
    static let passing = """
        test_add test_add_bcast test_averagepool_1d_default test_averagepool_2d_ceil test_averagepool_2d_default
        test_averagepool_2d_pads test_averagepool_2d_pads_count_include_pad test_averagepool_2d_precomputed_pads
        test_averagepool_2d_precomputed_pads_count_include_pad test_averagepool_2d_precomputed_same_upper
        test_averagepool_2d_precomputed_strides test_averagepool_2d_same_lower test_averagepool_2d_same_upper
        test_averagepool_2d_strides test_batchnorm_epsilon test_batchnorm_example test_clip test_clip_default_inbounds
        test_clip_default_max test_clip_default_min test_clip_example test_clip_inbounds test_clip_outbounds
        test_clip_splitbounds test_concat_1d_axis_0 test_concat_1d_axis_negative_1 test_concat_2d_axis_0
        test_concat_2d_axis_1 test_concat_2d_axis_negative_1 test_concat_2d_axis_negative_2 test_concat_3d_axis_0
        test_concat_3d_axis_1 test_concat_3d_axis_2 test_concat_3d_axis_negative_1 test_concat_3d_axis_negative_2
        test_concat_3d_axis_negative_3 test_constant test_constant_pad test_constantofshape_float_ones
        test_conv_with_autopad_same test_conv_with_strides_and_asymmetric_padding test_conv_with_strides_no_padding
        test_conv_with_strides_padding test_div test_div_bcast test_div_example test_dropout_default
        test_dropout_default_mask test_dropout_default_mask_ratio test_dropout_default_old test_dropout_default_ratio
        test_dropout_random_old test_erf test_expand_dim_changed test_expand_dim_unchanged test_flatten_axis0
        test_flatten_axis1 test_flatten_axis2 test_flatten_axis3 test_flatten_default_axis test_flatten_negative_axis1
        test_flatten_negative_axis2 test_flatten_negative_axis3 test_flatten_negative_axis4 test_gather_0 test_gather_1
        test_gather_2d_indices test_gather_negative_indices test_gemm_all_attributes test_gemm_alpha test_gemm_beta
        test_gemm_default_matrix_bias test_gemm_default_no_bias test_gemm_default_scalar_bias
        test_gemm_default_single_elem_vector_bias test_gemm_default_vector_bias test_gemm_default_zero_bias
        test_gemm_transposeA test_gemm_transposeB test_globalaveragepool test_globalaveragepool_precomputed
        test_hardsigmoid test_hardsigmoid_default test_hardsigmoid_example test_hardswish test_hardswish_expanded
        test_identity test_layer_normalization_2d_axis0 test_layer_normalization_2d_axis0_expanded
        test_layer_normalization_2d_axis1 test_layer_normalization_2d_axis1_expanded
        test_layer_normalization_2d_axis_negative_1 test_layer_normalization_2d_axis_negative_2
        test_layer_normalization_3d_axis0_epsilon test_layer_normalization_3d_axis0_epsilon_expanded
        test_layer_normalization_3d_axis1_epsilon test_layer_normalization_3d_axis1_epsilon_expanded
        test_layer_normalization_3d_axis2_epsilon test_layer_normalization_3d_axis2_epsilon_expanded
        test_layer_normalization_3d_axis_negative_1_epsilon test_layer_normalization_3d_axis_negative_2_epsilon
        test_layer_normalization_3d_axis_negative_3_epsilon test_layer_normalization_4d_axis0
        test_layer_normalization_4d_axis0_expanded test_layer_normalization_4d_axis1
        test_layer_normalization_4d_axis1_expanded test_layer_normalization_4d_axis2
        test_layer_normalization_4d_axis2_expanded test_layer_normalization_4d_axis3
        test_layer_normalization_4d_axis3_expanded test_layer_normalization_4d_axis_negative_1
        test_layer_normalization_4d_axis_negative_2 test_layer_normalization_4d_axis_negative_3
        test_layer_normalization_4d_axis_negative_4 test_layer_normalization_default_axis test_matmul_2d test_matmul_3d
        test_matmul_4d test_maxpool_1d_default test_maxpool_2d_ceil test_maxpool_2d_default test_maxpool_2d_dilations
        test_maxpool_2d_pads test_maxpool_2d_precomputed_pads test_maxpool_2d_precomputed_same_upper
        test_maxpool_2d_precomputed_strides test_maxpool_2d_same_lower test_maxpool_2d_same_upper
        test_maxpool_2d_strides test_mul test_mul_bcast test_mul_example test_pow test_pow_bcast_array
        test_pow_bcast_scalar test_pow_example test_pow_types_int64_int64 test_reciprocal test_reciprocal_example
        test_reduce_mean_default_axes_keepdims_example test_reduce_mean_default_axes_keepdims_random
        test_reduce_mean_do_not_keepdims_example test_reduce_mean_do_not_keepdims_random
        test_reduce_mean_keepdims_example test_reduce_mean_keepdims_random
        test_reduce_mean_negative_axes_keepdims_example test_reduce_mean_negative_axes_keepdims_random test_relu
        test_reshape_allowzero_reordered test_reshape_extended_dims test_reshape_negative_dim
        test_reshape_negative_extended_dims test_reshape_one_dim test_reshape_reduced_dims
        test_reshape_reordered_all_dims test_reshape_reordered_last_dims test_reshape_zero_and_negative_dim
        test_reshape_zero_dim test_shape test_shape_clip_end test_shape_clip_start test_shape_end_1
        test_shape_end_negative_1 test_shape_example test_shape_start_1 test_shape_start_1_end_2
        test_shape_start_1_end_negative_1 test_shape_start_negative_1 test_sigmoid test_sigmoid_example test_size
        test_size_example test_slice test_slice_default_axes test_slice_default_steps test_slice_end_out_of_bounds
        test_slice_neg test_slice_neg_steps test_slice_negative_axes test_slice_start_out_of_bounds test_softmax_axis_0
        test_softmax_axis_1 test_softmax_axis_2 test_softmax_default_axis test_softmax_example test_softmax_large_number
        test_softmax_negative_axis test_split_equal_parts_1d test_split_equal_parts_2d
        test_split_equal_parts_default_axis test_split_variable_parts_1d test_split_variable_parts_2d
        test_split_variable_parts_default_axis test_split_zero_size_splits test_sqrt test_sqrt_example test_squeeze
        test_squeeze_negative_axes test_sub test_sub_bcast test_sub_example test_tanh test_tanh_example
        test_transpose_all_permutations_0 test_transpose_all_permutations_1 test_transpose_all_permutations_2
        test_transpose_all_permutations_3 test_transpose_all_permutations_4 test_transpose_all_permutations_5
        test_transpose_default test_unsqueeze_axis_0 test_unsqueeze_axis_1 test_unsqueeze_axis_2 test_unsqueeze_axis_3
        test_unsqueeze_negative_axes test_unsqueeze_three_axes test_unsqueeze_two_axes test_unsqueeze_unsorted_axes
        test_where_example test_where_long_example
        """.split(whereSeparator: \.isWhitespace).map(String.init)

    /// Folders of supported operators that are refused at load, and why: element types other than float
    /// (the models' inputs are float), 3-D windows, training mode, MaxPool's Indices output, non-tensor values,
    /// and expanded forms that use operators outside the list. Each must fail with a clear load error.
    static let refused: [(folder: String, reason: String)] = [
        ("test_add_uint8", "element type"), ("test_mul_uint8", "element type"), ("test_maxpool_2d_uint8", "element type"),
        ("test_clip_default_int8_inbounds", "element type"), ("test_clip_default_int8_max", "element type"),
        ("test_clip_default_int8_min", "element type"), ("test_edge_pad", "element type"), ("test_reflect_pad", "element type"),
        ("test_averagepool_3d_default", "3-D windows"), ("test_maxpool_3d_default", "3-D windows"),
        ("test_batchnorm_epsilon_training_mode", "training mode"), ("test_batchnorm_example_training_mode", "training mode"),
        ("test_maxpool_with_argmax_2d_precomputed_pads", "Indices output"),
        ("test_maxpool_with_argmax_2d_precomputed_strides", "Indices output"),
        ("test_identity_opt", "not a tensor"), ("test_identity_sequence", "not a tensor"),
        ("test_softmax_example_expanded", "operator ReduceMax is not supported"),
        ("test_cast_FLOAT_to_DOUBLE", "element type"), ("test_equal", "element type"),
        ("test_range_float_type_positive_delta", "must be known before the run"),
        ("test_layer_normalization_default_axis_expanded", "operator Neg is not supported"),
    ]

    @Test("ONNX node test passes", arguments: passing)
    func nodeTestPasses(_ folder: String) async throws {
        let test = NodeTest(directory: ModelFixtures.onnxNodeTests.appendingPathComponent(folder))
        let outcome = try test.run() // on the suite's own two threads (.cpuHeavy)
        #expect(outcome.passed, "\(folder): \(outcome.failures.joined(separator: "; "))")
    }

    /// Cases Debian's node tests lack, written by make_test_models.py with ONNX's reference evaluator: float Pad in
    /// edge and reflect modes, Equal and Range on int64 (ONNX's own cases are int32, which models use for no
    /// shape), and Gelu (newer than Debian's ONNX).
    static let generated = ["pad_edge_float", "pad_reflect_float", "gelu_none", "gelu_tanh", "equal_int64", "range_int64"]

    @Test("generated node cases match ONNX's reference", arguments: generated)
    func generatedCases(_ folder: String) async throws {
        let test = NodeTest(directory: try ModelFixtures.testModel(folder))
        let outcome = try test.run() // on the suite's own two threads (.cpuHeavy)
        #expect(outcome.passed, "\(outcome.failures)")
    }

    @Test("every supported operator has passing node tests")
    func everyOperatorIsCovered() throws {
        var covered = Set<String>()
        for folder in Self.passing {
            let model = try InferenceModel(contentsOf: ModelFixtures.onnxNodeTests.appendingPathComponent(folder + "/model.onnx"))
            covered.formUnion(model.operatorTypes)
        }
        for folder in Self.generated {
            covered.formUnion(try InferenceModel(contentsOf: ModelFixtures.testModel(folder).appendingPathComponent("model.onnx")).operatorTypes)
        }
        #expect(Set(OperatorRegistry.supported).subtracting(covered).isEmpty, "not covered: \(Set(OperatorRegistry.supported).subtracting(covered))")
    }

    @Test("node tests outside what is supported are refused at load, saying why")
    func refusedClearly() {
        for (folder, reason) in Self.refused {
            do {
                _ = try NodeTest(directory: ModelFixtures.onnxNodeTests.appendingPathComponent(folder)).run()
                Issue.record("\(folder) was accepted")
            } catch {
                #expect(error.message.contains(reason), "\(folder): \(error.message)")
            }
        }
    }
}
