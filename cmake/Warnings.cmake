# relforge_warnings(target): the project's warning set; errors when RELFORGE_WARNINGS_AS_ERRORS.
function(relforge_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                           -Wdouble-promotion -Wformat=2
                                           -Wimplicit-fallthrough)
  # GCC 12 reports -Wrestrict inside libstdc++'s std::string at -O2/-O3 (GCC bug 105329), a false
  # positive in code we do not own.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-restrict)
    # In a unity build every source is an included file, so a .cpp's private Impl holding a type
    # from its own anonymous namespace looks to GCC like a header doing it.
    if(RELFORGE_UNITY)
      target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
    endif()
  endif()
  if(RELFORGE_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
